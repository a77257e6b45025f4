// etcdctl 3.4's `-w table` (it renders with github.com/olekukonko/tablewriter, right-aligned):
//
//   +------------------------+------------+
//   |        ENDPOINT        |    HASH    |
//   +------------------------+------------+
//   | http://127.0.0.1:23791 | 1084519789 |
//   +------------------------+------------+
//
// Headers upper-cased and centred (the odd space on the right), cells right-aligned, one space of
// padding each side. A cell wider than 30 characters is wrapped at its spaces into lines of at
// most 30 (a single longer word keeps its width) and its column is 30 wide: endpoint status's
// "memberID:2273707132732435106 alarm:NOSPACE " becomes two lines. Our own code, written from
// tables etcdctl printed (../shared/reference/etcd-3.4.md, testdata/etcd/).
#pragma once

#include <string>
#include <vector>

namespace dst::etcdctl {

std::string render_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows);

}  // namespace dst::etcdctl
