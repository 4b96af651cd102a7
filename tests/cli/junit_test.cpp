// JUnit XML as CI tools read it: tests/failures/errors counts and time on the suite, time on every
// testcase, a divergent case's failure message naming its first divergent event (kind, input,
// field) with the reproduce line in the body, and properties naming the refcheck version, the
// image by SHA-256 and every seeded fault. Well-formed (xmllint --noout, when xmllint is there).
#include "cli_support.hpp"

#include <cstdlib>
#include <regex>

namespace refcheck::cli_test {
namespace {

// The value of attribute `name` in the first element `<tag ...>` of `xml` ("" when absent).
std::string attribute(const std::string& xml, const std::string& tag, const std::string& name,
                      std::size_t from = 0) {
    const auto at = xml.find("<" + tag + " ", from);
    if (at == std::string::npos) return {};
    const auto end = xml.find('>', at);
    const std::string element = xml.substr(at, end - at);
    std::smatch m;
    if (!std::regex_search(element, m, std::regex(" " + name + "=\"([^\"]*)\""))) return {};
    return m[1].str();
}

bool is_seconds(const std::string& s) { return std::regex_match(s, std::regex("[0-9]+\\.[0-9]{3}")); }

std::string unescape(std::string s) {
    for (const auto& [entity, ch] : std::vector<std::pair<std::string, std::string>>{
             {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&amp;", "&"}})
        for (std::size_t at; (at = s.find(entity)) != std::string::npos;) s.replace(at, entity.size(), ch);
    return s;
}

class JunitTest : public CliTest {};

TEST_F(JunitTest, SuiteCountsTimesFailureMessageReproduceLineAndProperties) {
    const std::string files = join({shipped_case("loader"), shipped_case("construct"),
                                    write_case("small-program", small_program().to_json())});
    const Result r =
        refcheck("run " + files + " --data " + quote(kSmallData) + " --out out --inject-reimpl-light-swap");
    ASSERT_EQ(r.code, 1) << r.out << r.err;
    const std::string junit = read_text(path("out/junit.xml"));
    // Well-formed XML, by xmllint (scripts/setup.sh installs libxml2-utils): its absence fails the
    // test rather than skip the check unseen.
    ASSERT_EQ(std::system("command -v xmllint >/dev/null 2>&1"), 0)
        << "xmllint is missing: run scripts/setup.sh";
    EXPECT_EQ(std::system(("xmllint --noout " + quote(path("out/junit.xml"))).c_str()), 0) << junit;

    // The suite: three cases, one failure (the divergent program case), no error, a time.
    EXPECT_EQ(attribute(junit, "testsuite", "tests"), "3") << junit;
    EXPECT_EQ(attribute(junit, "testsuite", "failures"), "1") << junit;
    EXPECT_EQ(attribute(junit, "testsuite", "errors"), "0") << junit;
    EXPECT_TRUE(is_seconds(attribute(junit, "testsuite", "time"))) << junit;
    EXPECT_EQ(attribute(junit, "testsuites", "tests"), "3") << junit;
    // Every testcase has a time; the suite's is their sum (to rounding).
    double sum = 0;
    std::size_t testcases = 0;
    for (std::size_t at = junit.find("<testcase "); at != std::string::npos;
         at = junit.find("<testcase ", at + 1)) {
        const std::string t = attribute(junit, "testcase", "time", at);
        ASSERT_TRUE(is_seconds(t)) << junit.substr(at, 120);
        sum += std::stod(t);
        ++testcases;
    }
    EXPECT_EQ(testcases, 3u);
    EXPECT_NEAR(std::stod(attribute(junit, "testsuite", "time")), sum, 0.0021);

    // The failure names the first divergent event: its divergence kind, event kind, input and field.
    const ojson report = read_json(path("out/small-program.json"));
    const ojson& d = report.at("first_unexplained");
    const auto program = junit.find("name=\"small-program\"");
    ASSERT_NE(program, std::string::npos) << junit;
    const std::string message = unescape(attribute(junit, "failure", "message", program));
    EXPECT_NE(message.find(d.at("kind").get<std::string>()), std::string::npos) << message;
    EXPECT_NE(message.find(d.at("original").at("kind").get<std::string>() + " event"), std::string::npos)
        << message;
    EXPECT_NE(message.find("at input '" + d.at("input").get<std::string>() + "'"), std::string::npos)
        << message;
    EXPECT_NE(message.find("field " + d.at("fields").at(0).at("field").get<std::string>()), std::string::npos)
        << message;
    EXPECT_EQ(message.find("unexplained divergence\""), std::string::npos);
    // ... and the body holds the reproduce line the report stored.
    const auto body_at = junit.find('>', junit.find("<failure ", program)) + 1;
    const std::string body = unescape(junit.substr(body_at, junit.find("</failure>", body_at) - body_at));
    EXPECT_NE(body.find("reproduce: " + report.at("bisect").at("reproduce").get<std::string>()),
              std::string::npos)
        << body;

    // Properties: the image by SHA-256 and the seeded fault, before the first testcase.
    const auto properties = junit.find("<properties>");
    ASSERT_NE(properties, std::string::npos) << junit;
    EXPECT_LT(properties, junit.find("<testcase "));
    const ojson& image = report.at("inputs").at("image");
    EXPECT_NE(junit.find("<property name=\"refcheck.image.sha256." + image.at("file").get<std::string>() +
                         "\" value=\"" + image.at("sha256").get<std::string>() + "\"/>"),
              std::string::npos)
        << junit;
    EXPECT_NE(junit.find("<property name=\"refcheck.seeded_fault.reimpl_light\" value=\"x and z swapped\"/>"),
              std::string::npos)
        << junit;
}

TEST_F(JunitTest, AnEquivalentRunStillNamesTheImageAndTimesEveryCase) {
    const Result r = refcheck("run " + quote(shipped_case("loader")) + " --data " + quote(kSmallData) +
                              " --out out --jobs 1");
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    const std::string junit = read_text(path("out/junit.xml"));
    EXPECT_EQ(attribute(junit, "testsuite", "tests"), "1");
    EXPECT_EQ(attribute(junit, "testsuite", "failures"), "0");
    EXPECT_EQ(attribute(junit, "testsuite", "errors"), "0");
    EXPECT_TRUE(is_seconds(attribute(junit, "testcase", "time"))) << junit;
    EXPECT_NE(junit.find("name=\"refcheck.image.sha256.standin.exe\""), std::string::npos) << junit;
    EXPECT_EQ(junit.find("seeded_fault"), std::string::npos) << junit;
}

} // namespace
} // namespace refcheck::cli_test
