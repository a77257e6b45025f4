#include "tools/schedule_command.h"

#include <cstdio>
#include <sstream>

#include "faults/schedule_text.h"
#include "history/run_db.h"
#include "scenarios/schedule_file.h"
#include "tools/cli_args.h"
#include "tools/exit_codes.h"

namespace dst {

namespace {

// The --bug list of the command line the run recorded as its options (the reproduce command
// dst itself wrote: words separated by spaces), or "".
std::string bug_list(const std::string& command_line) {
  std::istringstream words(command_line);
  std::string word, bugs;
  while (words >> word)
    if (word == "--bug" && words >> bugs) return bugs;
  return "";
}

}  // namespace

int schedule_command(const std::vector<std::string>& argv) {
  cli::Args args("dst schedule", argv);
  args.positional("RUN.db", "the run database (dst run SCENARIO.lua ... --out DIR writes DIR/run.db)", false);
  if (std::optional<int> done = args.parse_or_exit(
          "\nwrites the run's fault schedule to stdout as Lua; `dst run --schedule FILE` replays it\n"))
    return *done;
  const std::string path = *args.positional_value("RUN.db");
  Result<history::RunDbReader> reader = history::RunDbReader::open(path);
  if (!reader.is_ok()) {
    std::fprintf(stderr, "dst schedule: %s\n", reader.status().message().c_str());
    return kExitUsage;
  }
  Result<history::RunRecord> run = reader->read_run();
  Result<std::vector<history::ScheduleStep>> steps =
      run.is_ok() ? reader->read_schedule_steps() : Result<std::vector<history::ScheduleStep>>(run.status());
  if (!steps.is_ok()) {
    std::fprintf(stderr, "dst schedule: %s\n", steps.status().message().c_str());
    return kExitUsage;
  }
  faults::Schedule meta;
  meta.scenario = run->info.scenario;
  meta.seed = run->info.seed;
  meta.bugs = bug_list(run->info.options);
  // The rows are read back as a schedule file would be, and the file is written anew from what
  // was read: a row that is not a step (a damaged or hand-made database) is refused here, and
  // each line's comment says what its step does.
  std::string text = faults::schedule_header(meta, path, steps->size());
  for (const history::ScheduleStep& s : *steps) text += faults::schedule_line(s.lua, s.at_ns, s.kind);
  Result<faults::Schedule> schedule = scenarios::load_schedule_source(path + " (schedule table)", text);
  if (!schedule.is_ok()) {
    std::fprintf(stderr, "dst schedule: %s\n", schedule.status().message().c_str());
    return kExitUsage;
  }
  const std::string out = faults::schedule_to_lua(*schedule, path);
  std::fwrite(out.data(), 1, out.size(), stdout);
  return kExitPass;
}

}  // namespace dst
