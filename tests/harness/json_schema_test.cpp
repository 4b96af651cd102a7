// The test-side JSON Schema validator (json_schema.hpp) finds each kind of violation the report
// schemas can express, and refuses schemas that use keywords outside its subset.
#include "json_schema.hpp"

#include <gtest/gtest.h>

using refcheck::test::ojson;
using refcheck::test::SchemaError;
using refcheck::test::SchemaSet;

namespace {

SchemaSet sample() {
    SchemaSet s;
    s.add("defs.json",
          ojson::parse(R"({"$defs": {"hex": {"type": "string", "pattern": "^0x[0-9a-f]{8}$"}}})"));
    s.add("main.json", ojson::parse(R"({
        "type": "object", "required": ["kind", "n"], "additionalProperties": false,
        "properties": {
            "kind": {"enum": ["a", "b"]}, "n": {"type": "integer", "minimum": 0}, "v": {"const": 1},
            "at": {"$ref": "defs.json#/$defs/hex"},
            "list": {"type": "array", "minItems": 1, "maxItems": 2, "items": {"$ref": "#/$defs/item"}},
            "map": {"type": "object", "additionalProperties": {"type": ["integer", "null"]}}
        },
        "$defs": {"item": {"type": "object", "required": ["x"], "properties": {"x": {"type": "boolean"}}}}
    })"));
    return s;
}

} // namespace

TEST(JsonSchema, AValidDocumentHasNoViolations) {
    const auto errors = sample().validate(
        ojson::parse(
            R"({"kind": "a", "n": 3, "v": 1, "at": "0x00401000", "list": [{"x": true}], "map": {"k": null, "j": 2}})"),
        "main.json");
    EXPECT_TRUE(errors.empty()) << errors.front();
}

TEST(JsonSchema, EachViolationIsNamedByItsPointer) {
    const auto errors = sample().validate(
        ojson::parse(
            R"({"kind": "c", "n": -1, "v": 2, "at": "0x401000", "list": [{"y": 1}, {"x": 0}, {"x": false}],
                         "map": {"k": "s"}, "extra": 1})"),
        "main.json");
    const std::vector<std::string> expected = {"/kind: \"c\" is not one of [\"a\",\"b\"]",
                                               "/n: below the minimum 0",
                                               "/v: must be 1",
                                               "/at: \"0x401000\" does not match \"^0x[0-9a-f]{8}$\"",
                                               "/list: more than 2 items",
                                               "/list/0: lacks required \"x\"",
                                               "/list/1/x: is number, the schema wants \"boolean\"",
                                               "/map/k: is string, the schema wants [\"integer\",\"null\"]",
                                               "/extra: not allowed here"};
    EXPECT_EQ(errors, expected);
    EXPECT_EQ(sample().validate(ojson::parse(R"({"n": 1})"), "main.json"),
              std::vector<std::string>{"/: lacks required \"kind\""});
}

TEST(JsonSchema, KeywordsOutsideTheSubsetAreRefused) {
    SchemaSet s;
    EXPECT_THROW(s.add("x.json", ojson::parse(R"({"properties": {"a": {"oneOf": []}}})")), SchemaError);
    EXPECT_THROW(s.add("y.json", ojson::parse(R"({"minLength": 2})")), SchemaError);
}
