package dev.loomlab;

import static com.tngtech.archunit.base.DescribedPredicate.alwaysTrue;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackages;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The service's floors as docs/architecture.md draws them, held against its compiled classes: an
 * import points down, never up or sideways, and a workload never imports another.
 */
class ArchitectureTest {

  private static final String[] WORKLOADS = {
    "dev.loomlab.sleep..",
    "dev.loomlab.tasks..",
    "dev.loomlab.product..",
    "dev.loomlab.ingest..",
    "dev.loomlab.db..",
    "dev.loomlab.pinning..",
    "dev.loomlab.mixed..",
    "dev.loomlab.buffers.."
  };

  private static final String[] FLOOR_THREE = {
    "dev.loomlab.observability..", "dev.loomlab.input..", "dev.loomlab.database.."
  };

  private static final JavaClasses SERVICE =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.loomlab");

  @Test
  void everyImportPointsDown() {
    layeredArchitecture()
        .consideringOnlyDependenciesInLayers()
        .layer("ground")
        .definedBy("dev.loomlab.problem..", "dev.loomlab.settings..")
        .layer("execution")
        .definedBy("dev.loomlab.execution..")
        .layer("shared")
        .definedBy(FLOOR_THREE)
        .layer("workloads")
        .definedBy(WORKLOADS)
        .layer("info")
        .definedBy("dev.loomlab.info..")
        .whereLayer("info")
        .mayNotBeAccessedByAnyLayer()
        .whereLayer("workloads")
        .mayNotBeAccessedByAnyLayer()
        .whereLayer("shared")
        .mayOnlyBeAccessedByLayers("workloads", "info")
        .whereLayer("execution")
        .mayOnlyBeAccessedByLayers("shared", "workloads", "info")
        .check(SERVICE);
  }

  @Test
  void noWorkloadImportsAnother() {
    noneImportsAnother(WORKLOADS);
  }

  @Test
  void nothingOnAFloorImportsItsNeighbours() {
    noneImportsAnother(FLOOR_THREE);
  }

  /** No top-level package of {@code packages} imports another of them (imports elsewhere aside). */
  private static void noneImportsAnother(String... packages) {
    slices()
        .matching("dev.loomlab.(*)..")
        .should()
        .notDependOnEachOther()
        .ignoreDependency(resideOutsideOfPackages(packages), alwaysTrue())
        .ignoreDependency(alwaysTrue(), resideOutsideOfPackages(packages))
        .check(SERVICE);
  }
}
