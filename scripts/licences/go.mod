module dev.loomlab/licences

go 1.24

require github.com/google/licensecheck v0.3.1
