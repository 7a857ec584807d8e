package dev.loomlab.product;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.loomlab.product.ProductView.Stock;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

/**
 * The stock dependency: a blocking HTTP call with the JDK's {@link HttpClient}. Its blocking {@code
 * send} is exactly what the two models are compared on: it parks a virtual thread, and holds a
 * platform thread.
 */
@ApplicationScoped
public class StockClient {

  private final HttpClient client;
  private final ObjectMapper json;
  private final ProductConfig config;

  StockClient(ProductConfig config, ObjectMapper json) {
    this.config = config;
    this.json = json;
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
}
