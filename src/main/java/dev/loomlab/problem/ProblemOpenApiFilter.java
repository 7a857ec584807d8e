package dev.loomlab.problem;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.eclipse.microprofile.openapi.OASFactory;
import org.eclipse.microprofile.openapi.OASFilter;
import org.eclipse.microprofile.openapi.models.OpenAPI;
import org.eclipse.microprofile.openapi.models.Operation;
import org.eclipse.microprofile.openapi.models.media.Content;
import org.eclipse.microprofile.openapi.models.media.Schema;
import org.eclipse.microprofile.openapi.models.responses.APIResponse;

/**
 * Documents the problem answers every {@code /api} operation can give, in one place instead of an
 * annotation repeated on every method.
 */
public class ProblemOpenApiFilter implements OASFilter {

  private static final Map<String, String> RESPONSES =
      Map.of(
          "400", "Invalid input (non-numeric, out of bounds, malformed body); nothing was done",
          "404", "Unknown mode, path or entity",
          "500", "Partial write, database error or a bug (logged under the id in the detail)",
          "503",
              "Overloaded, database unavailable or write conflict; nothing was kept, retry after"
                  + " Retry-After seconds");

  @Override
  public void filterOpenAPI(OpenAPI openAPI) {
    openAPI.getComponents().addSchema("Problem", problemSchema());
    if (openAPI.getPaths() == null || openAPI.getPaths().getPathItems() == null) {
      return;
    }
    openAPI
        .getPaths()
        .getPathItems()
        .forEach(
            (path, item) -> {
              if (!path.startsWith("/api/")) {
                return;
              }
              item.getOperations().values().forEach(this::addProblems);
            });
  }

  private void addProblems(Operation operation) {
    RESPONSES.forEach(
        (code, description) -> {
          if (operation.getResponses().getAPIResponse(code) == null) {
            operation.getResponses().addAPIResponse(code, problem(description));
          }
        });
  }

  private static APIResponse problem(String description) {
    Content content =
        OASFactory.createContent()
            .addMediaType(
                Problem.MEDIA_TYPE,
                OASFactory.createMediaType()
                    .schema(OASFactory.createSchema().ref("#/components/schemas/Problem")));
    return OASFactory.createAPIResponse().description(description).content(content);
  }

  private static Schema problemSchema() {
    Schema string = OASFactory.createSchema().addType(Schema.SchemaType.STRING);
    Schema violation =
        OASFactory.createSchema()
            .addType(Schema.SchemaType.OBJECT)
            .addProperty("field", string)
            .addProperty("message", string);
    return OASFactory.createSchema()
        .addType(Schema.SchemaType.OBJECT)
        .description("RFC 9457 problem details")
        .addProperty(
            "type",
            OASFactory.createSchema()
                .addType(Schema.SchemaType.STRING)
                .description(
                    "what went wrong, one of these URIs (docs/endpoints.md, \"Problem types\"): "
                        + Arrays.stream(ProblemType.values())
                            .map(t -> t.uri() + " (" + t.title() + ")")
                            .collect(Collectors.joining(", ")))
                .enumeration(
                    Arrays.stream(ProblemType.values()).map(t -> (Object) t.uri()).toList()))
        .addProperty("title", string)
        .addProperty("status", OASFactory.createSchema().addType(Schema.SchemaType.INTEGER))
        .addProperty("detail", string)
        .addProperty("instance", string)
        .addProperty(
            "violations",
            OASFactory.createSchema().addType(Schema.SchemaType.ARRAY).items(violation))
        .addProperty(
            "failed",
            OASFactory.createSchema()
                .addType(Schema.SchemaType.ARRAY)
                .description("partial-write, write-conflict: the tables not written")
                .items(string))
        .addProperty(
            "queue",
            OASFactory.createSchema()
                .addType(Schema.SchemaType.STRING)
                .description(
                    "overloaded past loomlab.execution.max-wait: the queue the wait budget ran"
                        + " out in")
                .enumeration(List.of("thread", "permit", "bulkhead")));
  }
}
