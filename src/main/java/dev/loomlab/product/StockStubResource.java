package dev.loomlab.product;

import dev.loomlab.problem.Bounds;
import dev.loomlab.product.ProductView.Stock;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Vertx;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * A stand-in stock service: answers after {@code ms} with a non-blocking timer on the event loop,
 * so the stub itself holds no thread and cannot be the bottleneck of either mode.
 */
@Path("/stub/stock")
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "stub", description = "Downstream stand-ins served by loom-lab itself")
public class StockStubResource {

  private static final long MAX_MS = 10_000;

  private final Vertx vertx;

  StockStubResource(Vertx vertx) {
    this.vertx = vertx;
  }

  @GET
  @Path("{id}")
  @Operation(summary = "Stock of a product, after ms milliseconds (non-blocking)")
  public Uni<Stock> stock(@PathParam("id") long id, @QueryParam("ms") @DefaultValue("0") long ms) {
    Bounds.check("ms", ms, 0, MAX_MS);
    Stock stock = new Stock(id, (int) Math.floorMod(id * 37, 100), "wh-" + Math.floorMod(id, 5));
    if (ms == 0) {
      return Uni.createFrom().item(stock);
    }
    // A Vert.x timer fires on this event loop. (Mutiny's delayIt() would hop to Quarkus' worker
    // pool, the very pool worker-mode requests saturate, and make the stub slower for them.)
    return Uni.createFrom()
        .emitter(emitter -> vertx.setTimer(ms, timer -> emitter.complete(stock)));
  }
}
