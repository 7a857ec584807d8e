package dev.loomlab.product;

import dev.loomlab.execution.Clients;
import dev.loomlab.execution.LoopCarriers;
import dev.loomlab.execution.Mode;
import dev.loomlab.execution.WaitBudgeted;
import io.smallrye.common.annotation.Blocking;
import io.smallrye.common.annotation.RunOnVirtualThread;
import io.smallrye.mutiny.Uni;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/** {@code GET /api/{mode}/products/{id}}: a product lookup fanning out to four dependencies. */
@Path("/api")
@WaitBudgeted
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "product", description = "Seed C: four slow dependencies called in parallel")
@APIResponse(
    responseCode = "504",
    description = "A dependency failed or exceeded loomlab.product.timeout")
@APIResponse(responseCode = "503", description = "The fan-out pool of the mode is full")
public class ProductResource {

  private static final String CLIENTS =
      "blocking (JDBC, the JDK HttpClient) or, on the virtual mode only, reactive: the virtual"
          + " thread awaits the Vert.x clients, combined with Mutiny";

  private final ProductService service;
  private final LoopCarriers loops;

  ProductResource(ProductService service, LoopCarriers loops) {
    this.loops = loops;
    this.service = service;
  }

  @GET
  @Path("worker/products/{id}")
  @Blocking
  @Operation(summary = "Look a product up on a worker thread; dependencies on the fan-out pool")
  public ProductView worker(
      @PathParam("id") long id,
      @Parameter(description = CLIENTS) @QueryParam("clients") String clients) {
    return service.lookup(Mode.WORKER, id, Clients.of(Mode.WORKER, clients));
  }

  @GET
  @Path("virtual/products/{id}")
  @RunOnVirtualThread
  @Operation(summary = "Look a product up on a virtual thread; dependencies on virtual threads")
  public ProductView virtual(
      @PathParam("id") long id,
      @Parameter(description = CLIENTS) @QueryParam("clients") String clients) {
    return service.lookup(Mode.VIRTUAL, id, Clients.of(Mode.VIRTUAL, clients));
  }

  @GET
  @Path("virtual-loop/products/{id}")
  @Operation(
      summary =
          "Look a product up on a virtual thread carried by its event loop; dependencies on virtual threads")
  public Uni<ProductView> virtualLoop(
      @PathParam("id") long id,
      @Parameter(description = CLIENTS) @QueryParam("clients") String clients) {
    return loops.call(
        () -> service.lookup(Mode.VIRTUAL_LOOP, id, Clients.of(Mode.VIRTUAL_LOOP, clients)));
  }

  @GET
  @Path("reactive/products/{id}")
  @Operation(summary = "Look a product up on the event loop; dependencies combined with Mutiny")
  public Uni<ProductView> reactive(
      @PathParam("id") long id,
      @Parameter(description = CLIENTS) @QueryParam("clients") String clients) {
    Clients.of(Mode.REACTIVE, clients);
    return service.lookupOnEventLoop(id);
  }
}
