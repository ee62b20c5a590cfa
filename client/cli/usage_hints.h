// Better words for a command line measurer cannot parse: which subcommand or option is unknown,
// and the known one nearest to it (by edit distance), as in "did you mean 'tune'?".
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

namespace mrd::cli {

/// Levenshtein distance: insertions, deletions and substitutions of one character.
size_t edit_distance(const std::string& a, const std::string& b);

/// The candidate nearest to `word`, when it is near enough to be a likely typo (at most a
/// third of the word's length, and at least 2 edits allowed).
std::optional<std::string> nearest(const std::string& word,
                                   const std::vector<std::string>& candidates);

/// After a parse error: a message naming the first unknown subcommand or option of the command
/// line and the nearest known one; nullopt when neither is unknown (CLI11's message then says
/// what is wrong).
std::optional<std::string> explain_unknown(const CLI::App& app, int argc, const char* const* argv);

}  // namespace mrd::cli
