#include "json_schema.hpp"

#include <algorithm>
#include <fstream>
#include <regex>
#include <set>

namespace refcheck::test {

namespace {

const std::set<std::string> kKeywords = {
    "$schema", "$id",      "title",    "description", "$defs",      "type",
    "enum",    "const",    "pattern",  "required",    "properties", "additionalProperties",
    "items",   "minItems", "maxItems", "minimum",     "$ref"};

bool has_type(const ojson& v, const std::string& t) {
    if (t == "object") return v.is_object();
    if (t == "array") return v.is_array();
    if (t == "string") return v.is_string();
    if (t == "boolean") return v.is_boolean();
    if (t == "null") return v.is_null();
    if (t == "number") return v.is_number();
    if (t == "integer")
        return v.is_number_integer() ||
               (v.is_number_float() && v.get<double>() == static_cast<double>(v.get<long long>()));
    throw SchemaError("unknown type \"" + t + "\"");
}

std::string escape_pointer(const std::string& key) {
    std::string out;
    for (char c : key) out += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
    return out;
}

} // namespace

void SchemaSet::check_keywords(const ojson& schema, const std::string& where) const {
    if (schema.is_boolean()) return;
    if (!schema.is_object()) throw SchemaError(where + ": a schema is an object or a boolean");
    for (const auto& [k, v] : schema.items()) {
        if (!kKeywords.count(k))
            throw SchemaError(where + ": keyword \"" + k + "\" is outside the validated subset");
        if (k == "properties" || k == "$defs")
            for (const auto& [name, sub] : v.items()) check_keywords(sub, where + "/" + k + "/" + name);
        if (k == "items" || k == "additionalProperties") check_keywords(v, where + "/" + k);
    }
}

void SchemaSet::add(const std::string& file_name, ojson schema) {
    check_keywords(schema, file_name);
    schemas_[file_name] = std::move(schema);
}

void SchemaSet::add_file(const std::filesystem::path& file) {
    std::ifstream in(file);
    if (!in) throw SchemaError("cannot read " + file.string());
    add(file.filename().string(), ojson::parse(in));
}

const ojson& SchemaSet::resolve(const std::string& ref, std::string& file) const {
    const auto hash = ref.find('#');
    if (hash == std::string::npos) throw SchemaError("$ref without a fragment: " + ref);
    if (hash > 0) file = ref.substr(0, hash);
    const auto it = schemas_.find(file);
    if (it == schemas_.end()) throw SchemaError("$ref to an unknown schema file: " + ref);
    const std::string fragment = ref.substr(hash + 1);
    return fragment.empty() ? it->second : it->second.at(ojson::json_pointer(fragment));
}

void SchemaSet::validate_at(const ojson& doc, const ojson& schema, const std::string& file,
                            const std::string& pointer, std::vector<std::string>& errors) const {
    const std::string at = pointer.empty() ? "/" : pointer;
    if (schema.is_boolean()) {
        if (!schema.get<bool>()) errors.push_back(at + ": not allowed here");
        return;
    }
    if (schema.contains("$ref")) {
        std::string target_file = file;
        const ojson& target = resolve(schema.at("$ref").get<std::string>(), target_file);
        validate_at(doc, target, target_file, pointer, errors);
    }
    if (schema.contains("type")) {
        const ojson& t = schema.at("type");
        bool ok = false;
        for (const auto& one : t.is_array() ? t : ojson::array({t}))
            ok = ok || has_type(doc, one.get<std::string>());
        if (!ok) {
            errors.push_back(at + ": is " + std::string(doc.type_name()) + ", the schema wants " + t.dump());
            return;
        }
    }
    if (schema.contains("const") && doc != schema.at("const"))
        errors.push_back(at + ": must be " + schema.at("const").dump());
    if (schema.contains("enum")) {
        const ojson& e = schema.at("enum");
        if (std::find(e.begin(), e.end(), doc) == e.end())
            errors.push_back(at + ": " + doc.dump() + " is not one of " + e.dump());
    }
    if (schema.contains("pattern") && doc.is_string() &&
        !std::regex_search(doc.get<std::string>(), std::regex(schema.at("pattern").get<std::string>())))
        errors.push_back(at + ": \"" + doc.get<std::string>() + "\" does not match " +
                         schema.at("pattern").dump());
    if (schema.contains("minimum") && doc.is_number() &&
        doc.get<double>() < schema.at("minimum").get<double>())
        errors.push_back(at + ": below the minimum " + schema.at("minimum").dump());
    if (doc.is_array()) {
        if (schema.contains("minItems") && doc.size() < schema.at("minItems").get<std::size_t>())
            errors.push_back(at + ": fewer than " + schema.at("minItems").dump() + " items");
        if (schema.contains("maxItems") && doc.size() > schema.at("maxItems").get<std::size_t>())
            errors.push_back(at + ": more than " + schema.at("maxItems").dump() + " items");
        if (schema.contains("items"))
            for (std::size_t i = 0; i < doc.size(); ++i)
                validate_at(doc[i], schema.at("items"), file, pointer + "/" + std::to_string(i), errors);
    }
    if (doc.is_object()) {
        for (const auto& r : schema.value("required", ojson::array()))
            if (!doc.contains(r.get<std::string>()))
                errors.push_back(at + ": lacks required \"" + r.get<std::string>() + "\"");
        const ojson properties = schema.value("properties", ojson::object());
        for (const auto& [k, v] : doc.items()) {
            const std::string sub = pointer + "/" + escape_pointer(k);
            if (properties.contains(k))
                validate_at(v, properties.at(k), file, sub, errors);
            else if (schema.contains("additionalProperties"))
                validate_at(v, schema.at("additionalProperties"), file, sub, errors);
        }
    }
}

std::vector<std::string> SchemaSet::validate(const ojson& document, const std::string& file_name) const {
    const auto it = schemas_.find(file_name);
    if (it == schemas_.end()) throw SchemaError("no schema named " + file_name);
    std::vector<std::string> errors;
    validate_at(document, it->second, file_name, "", errors);
    return errors;
}

} // namespace refcheck::test
