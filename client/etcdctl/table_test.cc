// -w table against tables a real etcdctl 3.4.23 printed (testdata/etcd/, and the reference page's
// NOSPACE endpoint status, whose errors cell wraps).
#include "client/etcdctl/table.h"

#include <gtest/gtest.h>

namespace dst::etcdctl {
namespace {

TEST(Table, HashKvAsEtcdctlPrintsIt) {
  EXPECT_EQ(render_table({"endpoint", "hash"}, {{"http://127.0.0.1:23791", "3658645045"}}),
            "+------------------------+------------+\n"
            "|        ENDPOINT        |    HASH    |\n"
            "+------------------------+------------+\n"
            "| http://127.0.0.1:23791 | 3658645045 |\n"
            "+------------------------+------------+\n");
  // No rows (every endpoint failed): the header alone.
  EXPECT_EQ(render_table({"endpoint", "hash"}, {}),
            "+----------+------+\n"
            "| ENDPOINT | HASH |\n"
            "+----------+------+\n"
            "+----------+------+\n");
}

TEST(Table, MemberListCentresHeadersAndRightAlignsCells) {
  EXPECT_EQ(render_table({"ID", "Status", "Name", "Peer Addrs", "Client Addrs", "Is Learner"},
                         {{"bdae9bbc11dd390d", "started", "rec", "http://127.0.0.1:23801", "http://127.0.0.1:23791", "false"}}),
            "+------------------+---------+------+------------------------+------------------------+------------+\n"
            "|        ID        | STATUS  | NAME |       PEER ADDRS       |      CLIENT ADDRS      | IS LEARNER |\n"
            "+------------------+---------+------+------------------------+------------------------+------------+\n"
            "| bdae9bbc11dd390d | started |  rec | http://127.0.0.1:23801 | http://127.0.0.1:23791 |      false |\n"
            "+------------------+---------+------+------------------------+------------------------+------------+\n");
}

TEST(Table, ALongCellWrapsAtItsSpacesIntoAColumnOfThirty) {
  const std::vector<std::string> header = {"endpoint", "ID", "version", "db size", "is leader", "is learner",
                                           "raft term", "raft index", "raft applied index", "errors"};
  EXPECT_EQ(render_table(header, {{"http://127.0.0.1:23794", "1f8dd49731c9eaa2", "3.4.23", "1.0 MB", "true", "false", "2",
                                   "18", "18", "memberID:2273707132732435106 alarm:NOSPACE "}}),
            "+------------------------+------------------+---------+---------+-----------+------------+-----------+------------+--------------------+--------------------------------+\n"
            "|        ENDPOINT        |        ID        | VERSION | DB SIZE | IS LEADER | IS LEARNER | RAFT TERM | RAFT INDEX | RAFT APPLIED INDEX |             ERRORS             |\n"
            "+------------------------+------------------+---------+---------+-----------+------------+-----------+------------+--------------------+--------------------------------+\n"
            "| http://127.0.0.1:23794 | 1f8dd49731c9eaa2 |  3.4.23 |  1.0 MB |      true |      false |         2 |         18 |                 18 |   memberID:2273707132732435106 |\n"
            "|                        |                  |         |         |           |            |           |            |                    |                 alarm:NOSPACE  |\n"
            "+------------------------+------------------+---------+---------+-----------+------------+-----------+------------+--------------------+--------------------------------+\n");
  // A single word longer than the wrap width keeps its width.
  EXPECT_EQ(render_table({"e"}, {{std::string(35, 'x')}}),
            "+-------------------------------------+\n"
            "|                  E                  |\n"
            "+-------------------------------------+\n"
            "| " + std::string(35, 'x') + " |\n"
            "+-------------------------------------+\n");
}

}  // namespace
}  // namespace dst::etcdctl
