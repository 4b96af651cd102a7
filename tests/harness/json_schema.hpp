// A JSON Schema (draft 2020-12) validator for the subset the report schemas in reports/ use:
// type, enum, const, pattern, required, properties, additionalProperties, items, minItems,
// maxItems, minimum, $ref (into $defs, of the same file or a sibling file) and the annotations
// ($schema, $id, title, description, $defs). A schema using any other keyword is refused, so no
// keyword is silently ignored.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace refcheck::test {

using ojson = nlohmann::ordered_json;

struct SchemaError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class SchemaSet {
public:
    // Adds a schema under its file name (how other schemas' $ref name it). Throws SchemaError on a
    // keyword outside the subset.
    void add(const std::string& file_name, ojson schema);
    void add_file(const std::filesystem::path& file);

    // One line per violation, "<json pointer>: <what>"; empty when `document` is valid.
    std::vector<std::string> validate(const ojson& document, const std::string& file_name) const;

private:
    void check_keywords(const ojson& schema, const std::string& where) const;
    void validate_at(const ojson& doc, const ojson& schema, const std::string& file,
                     const std::string& pointer, std::vector<std::string>& errors) const;
    const ojson& resolve(const std::string& ref, std::string& file) const;

    std::map<std::string, ojson> schemas_;
};

} // namespace refcheck::test
