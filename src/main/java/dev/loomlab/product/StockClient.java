package dev.loomlab.product;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.loomlab.database.ReactiveConfig;
import dev.loomlab.product.ProductView.Stock;
import io.smallrye.mutiny.Uni;
import io.vertx.ext.web.client.WebClientOptions;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.ext.web.client.WebClient;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

/**
 * The stock dependency: a blocking HTTP call with the JDK's {@link HttpClient}, whose blocking
 * {@code send} parks a virtual thread and holds a platform thread; in the reactive mode the same
 * call with the Vert.x web client, which holds neither.
 */
@ApplicationScoped
public class StockClient {

  private final HttpClient client;
  private final WebClient webClient;
  private final ObjectMapper json;
  private final ProductConfig config;

  StockClient(ProductConfig config, ReactiveConfig reactive, Vertx vertx, ObjectMapper json) {
    this.config = config;
    this.json = json;
    this.webClient =
        WebClient.create(
            vertx,
            new WebClientOptions()
                .setMaxPoolSize(reactive.webClient().maxConnections())
                .setKeepAlive(true)
                .setConnectTimeout((int) config.stock().connectTimeout().toMillis()));
    this.client =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(config.stock().connectTimeout())
            .build();
  }

  /** Asks the stock service for {@code productId}; it answers after {@code latencyMs}. */
  public Stock fetch(long productId, long latencyMs) throws IOException, InterruptedException {
    URI uri = URI.create(config.stock().url() + "/" + productId + "?ms=" + latencyMs);
    HttpRequest request =
        HttpRequest.newBuilder(uri)
            .timeout(config.timeout())
            .header("Accept", "application/json")
            .GET()
            .build();
    HttpResponse<byte[]> response = client.send(request, HttpResponse.BodyHandlers.ofByteArray());
    if (response.statusCode() != 200) {
      throw new IOException("stock service answered " + response.statusCode() + " for " + uri);
    }
    return json.readValue(response.body(), Stock.class);
  }

  /** The reactive form of {@link #fetch}: the same call with the Vert.x web client. */
  public Uni<Stock> fetchOnEventLoop(long productId, long latencyMs) {
    String uri = config.stock().url() + "/" + productId + "?ms=" + latencyMs;
    return webClient
        .getAbs(uri)
        .putHeader("Accept", "application/json")
        .timeout(config.timeout().toMillis())
        .send()
        .map(
            response -> {
              if (response.statusCode() != 200) {
                throw new IllegalStateException(
                    "stock service answered " + response.statusCode() + " for " + uri);
              }
              return readStock(response.bodyAsBuffer().getBytes());
            });
  }

  private Stock readStock(byte[] body) {
    try {
      return json.readValue(body, Stock.class);
    } catch (IOException e) {
      throw new UncheckedIOException("unreadable stock answer", e);
    }
  }

  @PreDestroy
  void close() {
    webClient.close();
  }
}
