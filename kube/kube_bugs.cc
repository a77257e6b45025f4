// See kube_bugs.h.
#include "kube/kube_bugs.h"

#include "base/named_enum.h"

namespace dst::kube {

namespace {
constexpr NamedValue<KubeBug> kKubeBugs[] = {
    {KubeBug::kListNotCaughtUp, "list-not-caught-up"},
    {KubeBug::kInformerResumeSkip, "informer-resume-skip"},
    {KubeBug::kDropOnRingWrap, "drop-on-ring-wrap"},
};
}  // namespace

std::string_view kube_bug_name(KubeBug bug) { return name_of(kKubeBugs, bug); }
Result<KubeBug> parse_kube_bug(std::string_view name) { return parse_named(kKubeBugs, name, "kube bug"); }
std::vector<KubeBug> all_kube_bugs() { return values_of(kKubeBugs); }

}  // namespace dst::kube
