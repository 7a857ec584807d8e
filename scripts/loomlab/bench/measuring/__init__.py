"""What a run measured: its figures from the generator's and the server's, the kernel's counts
(/proc, perf), the profiler's recordings, and the records they travel in."""
