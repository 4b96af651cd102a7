// The link from a divergence to its record in the workbench names the record, the state and the
// faces, and the SHA-256 of the 3DOBJS.BIN the run read, which the record page compares with the
// site's own (tests/browser/browser_check.py console checks that page): a site built from other
// archives would show another model under the same index.
#include "workbench/workbench_link.hpp"

#include <gtest/gtest.h>

using namespace refcheck::harness;
using ojson = nlohmann::ordered_json;

namespace {

ojson divergence() {
    return {{"input", "record 12 view 0 light 1 state 3"},
            {"original", {{"kind", "face_draw"}, {"fields", {{"record", 12}, {"offset", 40}}}}},
            {"reimpl", {{"kind", "face_draw"}, {"fields", {{"record", 12}, {"offset", 26}}}}}};
}

} // namespace

TEST(WorkbenchLink, NamesTheRecordStateFacesAndTheRunsModelArchive) {
    const std::string sha(64, 'a');
    const ojson inputs = {{"archives", {{"3DDATA/3DOBJS.BIN", sha}, {"3DPAL.RGB", std::string(64, 'b')}}}};
    EXPECT_EQ(workbench_query(divergence(), inputs), "record.html?r=12&state=3&faces=26,40&objs=" + sha);
    // Without the run's inputs (or with the archive missing, or not a hash) the link names none.
    EXPECT_EQ(workbench_query(divergence()), "record.html?r=12&state=3&faces=26,40");
    EXPECT_EQ(workbench_query(divergence(), {{"archives", {{"3DDATA/3DOBJS.BIN", nullptr}}}}),
              "record.html?r=12&state=3&faces=26,40");
    EXPECT_EQ(workbench_query(divergence(), {{"archives", {{"3DDATA/3DOBJS.BIN", "x&y=1"}}}}),
              "record.html?r=12&state=3&faces=26,40");
    const std::string html = workbench_link_html(divergence(), inputs);
    EXPECT_NE(html.find("faces=26,40&amp;objs=" + sha), std::string::npos) << html;
    EXPECT_NE(html.find("--data DATA"), std::string::npos) << html;
    EXPECT_EQ(workbench_link_html({{"input", "step 3"}}, inputs), ""); // no record: no link
}
