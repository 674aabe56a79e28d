package chwire.spark;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;

/** JSON across the JNI boundary (Jackson, as Spark bundles it). */
final class Json {
    static final ObjectMapper MAPPER = new ObjectMapper();

    private Json() {
    }

    static JsonNode parse(String text) {
        try {
            return MAPPER.readTree(text);
        } catch (JsonProcessingException e) {
            throw new ChwireException("bad JSON from chwire's native side: " + e.getMessage());
        }
    }

    static String write(JsonNode node) {
        try {
            return MAPPER.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new ChwireException("cannot write JSON: " + e.getMessage());
        }
    }

    static String strings(List<String> values) {
        ArrayNode a = MAPPER.createArrayNode();
        values.forEach(a::add);
        return write(a);
    }

    static String object(Map<String, String> values) {
        ObjectNode o = MAPPER.createObjectNode();
        values.forEach(o::put);
        return write(o);
    }
}
