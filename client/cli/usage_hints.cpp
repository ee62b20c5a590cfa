#include "client/cli/usage_hints.h"

#include <algorithm>

namespace mrd::cli {
namespace {

/// Every name of the options of `app` (and of its parents, which a subcommand also accepts),
/// with their dashes: "--trials", "-n".
std::vector<std::string> option_names(const CLI::App* app) {
  std::vector<std::string> names;
  for (; app; app = app->get_parent()) {
    for (const CLI::Option* o : app->get_options()) {
      for (const auto& l : o->get_lnames()) names.push_back("--" + l);
      for (const auto& s : o->get_snames()) names.push_back("-" + s);
    }
  }
  return names;
}

/// The option of `app` or a parent named `name` ("--trials" or "-n"), or null.
const CLI::Option* find_option(const CLI::App* app, const std::string& name) {
  for (; app; app = app->get_parent())
    for (const CLI::Option* o : app->get_options())
      if (o->check_name(name)) return o;
  return nullptr;
}

std::string with_suggestion(std::string message, const std::string& word,
                            const std::vector<std::string>& candidates, const std::string& help) {
  if (auto n = nearest(word, candidates)) message += "; did you mean '" + *n + "'?";
  return message + " (see `" + help + " --help`)";
}

}  // namespace

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

std::optional<std::string> nearest(const std::string& word,
                                   const std::vector<std::string>& candidates) {
  std::optional<std::string> best;
  size_t best_distance = std::max<size_t>(2, word.size() / 3) + 1;
  for (const auto& c : candidates) {
    size_t d = edit_distance(word, c);
    if (d < best_distance) {
      best = c;
      best_distance = d;
    }
  }
  return best;
}

std::optional<std::string> explain_unknown(const CLI::App& app, int argc, const char* const* argv) {
  const CLI::App* current = &app;
  std::string where = app.get_name();
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--") break;
    if (arg.size() > 1 && arg[0] == '-') {
      std::string name = arg.substr(0, arg.find('='));
      if (name.size() > 2 && name[1] != '-') name = name.substr(0, 2);  // -n5: "-n"
      const CLI::Option* o = find_option(current, name);
      if (!o)
        return with_suggestion(where + ": unknown option " + name, name, option_names(current),
                               where);
      bool takes_value = o->get_items_expected_min() > 0 && o->get_type_size() != 0;
      bool value_attached = arg.find('=') != std::string::npos || (arg[1] != '-' && arg.size() > 2);
      if (takes_value && !value_attached) ++i;
      continue;
    }
    if (current == &app) {
      std::vector<std::string> names;
      for (const CLI::App* s : app.get_subcommands([](const CLI::App*) { return true; }))
        names.push_back(s->get_name());
      auto it = std::find(names.begin(), names.end(), arg);
      if (it == names.end())
        return with_suggestion(where + ": unknown subcommand '" + arg + "'", arg, names, where);
      current = app.get_subcommand(arg);
      where = app.get_name() + " " + arg;
      continue;
    }
  }
  return std::nullopt;
}

}  // namespace mrd::cli
