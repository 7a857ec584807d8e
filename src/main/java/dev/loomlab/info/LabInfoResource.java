package dev.loomlab.info;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/** {@code GET /api/info}: JDK, Quarkus, CPUs, and every pool size and bound in force. */
@Path("/api/info")
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "info")
public class LabInfoResource {

  private final LabInfoService service;

  LabInfoResource(LabInfoService service) {
    this.service = service;
  }

  @GET
  @Operation(summary = "The configuration a benchmark runs against")
  public LabInfo info() {
    return service.info();
  }
}
