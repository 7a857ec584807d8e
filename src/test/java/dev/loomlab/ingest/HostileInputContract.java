package dev.loomlab.ingest;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.not;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.restassured.http.ContentType;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import me.escoffier.loom.loomunit.ShouldNotPin;
import org.junit.jupiter.api.Test;

/**
 * Input that looks valid or is built to be expensive, in every mode and write strategy: values
 * PostgreSQL refuses, a mistyped key, a key given twice, half a surrogate pair, a fraction for an
 * integer, a 10 MB embedding, 200,000 tiny records, a chunk with a violation per record, a body
 * over the limit. Each gets a 4xx problem and the database stays as it was.
 */
public abstract class HostileInputContract extends IngestContractBase {

  private static final ObjectMapper JSON = new ObjectMapper();

  private static final List<List<String>> STRATEGIES =
      List.of(
          List.of("worker", "sequential"),
          List.of("worker", "parallel"),
          List.of("worker", "copy"),
          List.of("virtual", "sequential"),
          List.of("virtual", "parallel"),
          List.of("virtual", "copy"),
          List.of("reactive", "sequential"),
          List.of("reactive", "parallel"));

  @Test
  @ShouldNotPin
  void valuesPostgresRefusesAreBadRequestsInEveryStrategy() throws Exception {
    long from = base() + 2_100;
    TestDatabase.delete(noun(), from, from + 10);
    for (List<String> s : STRATEGIES) {
      Map<String, Object> parent = record(from, List.of("java"));
      parent.put(requiredField(), "a\u0000b");
      Map<String, Object> text = record(from + 1, List.of("java"));
      text.put(textField(), "before\u0000after");
      Map<String, Object> skill = record(from + 2, List.of("ja\u0000va"));
      String d = domain();
      post(s.get(0), s.get(1), List.of(parent, text, skill))
          .then()
          .statusCode(400)
          .contentType("application/problem+json")
          .body("type", equalTo("urn:loomlab:problem:invalid-input"))
          .body("violations.field", hasItem(d + "[0]." + requiredField()))
          .body("violations.field", hasItem(d + "[1]." + textField()))
          .body("violations.field", hasItem(d + "[2].skills[0].name"))
          .body("violations.message", hasItem(containsString("U+0000")));
      assertNothingIn(from, from + 10);
    }
  }

  @Test
  void mistypedKeyIsRefusedAndStoredChildrenStay() throws Exception {
    long from = base() + 2_200;
    TestDatabase.delete(noun(), from, from + 10);
    post("worker", "sequential", chunk(from, 3)).then().statusCode(200);
    assertRows(from, from + 10, 3, 9, 3, 3);
    for (List<String> s : STRATEGIES) {
      List<Map<String, Object>> mistyped = chunk(from, 3);
      mistyped.get(1).put("skils", mistyped.get(1).remove("skills"));
      post(s.get(0), s.get(1), mistyped)
          .then()
          .statusCode(400)
          .contentType("application/problem+json")
          .body("detail", containsString("unknown key \"skils\""))
          .body("detail", containsString("[1].skils"))
          .body("detail", not(containsString("dev.loomlab")));
      assertRows(from, from + 10, 3, 9, 3, 3);
    }
  }

  @Test
  void keyGivenTwiceIsRefusedAndStoredChildrenStay() throws Exception {
    long from = base() + 2_250;
    TestDatabase.delete(noun(), from, from + 10);
    post("worker", "sequential", chunk(from, 2)).then().statusCode(200);
    assertRows(from, from + 10, 2, 6, 2, 2);
    // The second record says "skills" twice, the last time empty: last-key-wins would delete them.
    String json = JSON.writeValueAsString(chunk(from, 2));
    String twice = json.substring(0, json.length() - 2) + ",\"skills\":[]}]";
    for (List<String> s : STRATEGIES) {
      post(s.get(0), s.get(1), twice)
          .then()
          .statusCode(400)
          .contentType("application/problem+json")
          .body("detail", containsString("at [1]: Duplicate field 'skills'"));
      assertRows(from, from + 10, 2, 6, 2, 2);
    }
  }

  @Test
  @ShouldNotPin
  void loneSurrogateIsRefusedNotStoredAsAQuestionMark() throws Exception {
    long id = base() + 2_280;
    TestDatabase.delete(noun(), id, id);
    Map<String, Object> record = record(id, List.of("java"));
    record.put(requiredField(), "LONE");
    // JSON's own escape of half a surrogate pair: valid JSON, no Unicode text.
    String body = JSON.writeValueAsString(List.of(record)).replace("LONE", "a\\ud800b");
    for (List<String> s : STRATEGIES) {
      post(s.get(0), s.get(1), body)
          .then()
          .statusCode(400)
          .contentType("application/problem+json")
          .body("violations.field", hasItem(domain() + "[0]." + requiredField()))
          .body("violations.message", hasItem(containsString("lone surrogate")));
      assertNothingIn(id, id);
    }
  }

  @Test
  void fractionWhereAnIntegerBelongsIsRefused() throws Exception {
    long id = base() + 2_300;
    TestDatabase.delete(noun(), id, id);
    Map<String, Object> record = record(id, List.of());
    record.put("skills", List.of(Map.of("name", "java", "level", 2.5)));
    post("virtual", "parallel", List.of(record))
        .then()
        .statusCode(400)
        .contentType("application/problem+json")
        .body("detail", containsString("[0].skills[0].level: not a valid integer: 2.5"));
    assertNothingIn(id, id);
  }

  @Test
  void oneHugeEmbeddingStopsAtTheBoundWhileParsed() throws Exception {
    long id = base() + 2_400;
    TestDatabase.delete(noun(), id, id);
    // About 10 MB: five million values, each of which Jackson would box into a Double; built once
    // as bytes (the service and this client share one JVM).
    byte[] body = embeddingBomb(id);
    for (String mode : List.of("worker", "virtual", "reactive")) {
      given()
          .contentType(ContentType.JSON)
          .body(body)
          .post("/api/" + mode + "/" + domain() + "/batch?writes=sequential")
          .then()
          .statusCode(400)
          .contentType("application/problem+json")
          .body("detail", containsString("[0].embedding"))
          .body("detail", containsString("loomlab.input.max-array-length"));
    }
    assertNothingIn(id, id);
  }

  @Test
  void manyTinyRecordsStopAtTheBoundWhileParsed() throws Exception {
    long id = base() + 2_500;
    TestDatabase.delete(noun(), id, id);
    // 200,000 records of one key each, as tiny as a record gets.
    byte[] record = ("{\"id\":" + id + "}").getBytes(StandardCharsets.US_ASCII);
    ByteArrayOutputStream body = new ByteArrayOutputStream(200_000 * (record.length + 1) + 2);
    body.write('[');
    for (int i = 0; i < 200_000; i++) {
      if (i > 0) {
        body.write(',');
      }
      body.write(record, 0, record.length);
    }
    body.write(']');
    given()
        .contentType(ContentType.JSON)
        .body(body.toByteArray())
        .post("/api/virtual/" + domain() + "/batch?writes=parallel")
        .then()
        .statusCode(400)
        .contentType("application/problem+json")
        .body("detail", containsString("loomlab.input.max-array-length"));
    assertNothingIn(id, id);
  }

  @Test
  void arraysWithinTheirBoundsThatMultiplyStopWhileParsed() throws Exception {
    long from = base() + 2_550;
    TestDatabase.delete(noun(), from, from + 1_000);
    // A thousand records of a thousand empty skills: each array within max-array-length, their
    // product a million objects to build and validate. The skills' own bound stops the first.
    String skills = "{},".repeat(999) + "{}";
    given()
        .contentType(ContentType.JSON)
        .body(records(from, "\"skills\":[" + skills + "]"))
        .post("/api/reactive/" + domain() + "/batch?writes=parallel")
        .then()
        .statusCode(400)
        .contentType("application/problem+json")
        .body("detail", containsString("at [0].skills"))
        .body("detail", containsString("at most 50 values (loomlab.ingest.max-skills)"));
    // A thousand records of a thousand-value embedding: a million values, past the body's tokens.
    String embedding = "0,".repeat(999) + "0";
    given()
        .contentType(ContentType.JSON)
        .body(records(from, "\"embedding\":[" + embedding + "]"))
        .post("/api/worker/" + domain() + "/batch?writes=sequential")
        .then()
        .statusCode(400)
        .contentType("application/problem+json")
        .body("detail", containsString("loomlab.input.max-tokens"))
        .body("detail", not(containsString("StreamReadConstraints")));
    assertNothingIn(from, from + 1_000);
  }

  /** A thousand records from {@code from}, each an id and the given key and value, as bytes. */
  private static byte[] records(long from, String keyAndValue) {
    StringBuilder body = new StringBuilder("[");
    for (long id = from; id < from + 1_000; id++) {
      body.append(id == from ? "" : ",").append("{\"id\":").append(id).append(',');
      body.append(keyAndValue).append('}');
    }
    return body.append(']').toString().getBytes(StandardCharsets.US_ASCII);
  }

  /** {@code [{"id":ID,"embedding":[0,0,...]}]} of about 9.8 MB, as bytes. */
  private static byte[] embeddingBomb(long id) {
    byte[] head = ("[{\"id\":" + id + ",\"embedding\":[0").getBytes(StandardCharsets.US_ASCII);
    int values = 4_900_000;
    byte[] body = new byte[head.length + 2 * (values - 1) + 3];
    System.arraycopy(head, 0, body, 0, head.length);
    int at = head.length;
    for (int i = 1; i < values; i++) {
      body[at++] = ',';
      body[at++] = '0';
    }
    body[at++] = ']';
    body[at++] = '}';
    body[at] = ']';
    return body;
  }

  @Test
  void violationsListedAreBounded() throws Exception {
    long from = base() + 2_600;
    List<Map<String, Object>> bad = new ArrayList<>();
    for (long id = from; id < from + 200; id++) {
      Map<String, Object> r = record(id, List.of());
      r.put(requiredField(), " ");
      r.put("embedding", List.of(0.5));
      bad.add(r);
    }
    post("worker", "sequential", bad)
        .then()
        .statusCode(400)
        .body("violations.size()", equalTo(51))
        .body("violations[50].message", containsString("checks stopped at 50 violations"))
        .body("violations[50].message", containsString("[25] and after were not checked"));
    assertNothingIn(from, from + 200);
  }

  @Test
  @ShouldNotPin
  void aViolationPerElementStopsTheChecksInEveryStrategy() throws Exception {
    // 1,000 records of 50 empty skills: 50,000 violations if every one were built.
    long from = base() + 2_650;
    TestDatabase.delete(noun(), from, from + 1_000);
    List<Map<String, Object>> bad = new ArrayList<>();
    for (long id = from; id < from + 1_000; id++) {
      Map<String, Object> r = record(id, List.of());
      r.put("skills", Collections.nCopies(50, Map.of()));
      bad.add(r);
    }
    String d = domain();
    for (List<String> s : STRATEGIES) {
      post(s.get(0), s.get(1), bad)
          .then()
          .statusCode(400)
          .contentType("application/problem+json")
          .body("violations.size()", equalTo(51))
          .body("violations.field", hasItem(d + "[0].skills[49].name"))
          .body("violations[50].message", containsString(d + "[1] and after were not checked"));
      assertNothingIn(from, from + 1_000);
    }
  }

  @Test
  void bodyOverTheLimitIsAProblemAndUnread() throws Exception {
    long id = base() + 2_700;
    byte[] body = new byte[11 * 1024 * 1024];
    java.util.Arrays.fill(body, (byte) ' ');
    body[0] = '[';
    body[body.length - 1] = ']';
    given()
        .contentType(ContentType.JSON)
        .body(body)
        .post("/api/worker/" + domain() + "/batch")
        .then()
        .statusCode(413)
        .contentType("application/problem+json")
        .body("type", equalTo("urn:loomlab:problem:payload-too-large"))
        .body("detail", containsString("quarkus.http.limits.max-body-size"));
    assertNothingIn(id, id);
  }
}
