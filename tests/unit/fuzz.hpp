#pragma once

// Random edits of a text, for fuzzing what podsim parses: a few insertions, deletions,
// replacements and duplications of characters that matter to YAML, units and expressions.

#include <random>
#include <string>

namespace podsim::testing {

inline std::string mutate(std::string doc, std::mt19937& rng) {
  static const std::string alphabet = " :[]{},-#&*!|>'\"%@`\n\t0123456789.eEkMGTiBbpsunx_abcdefghijklmnopqrstuvwxyz/()+*";
  const int edits = 1 + static_cast<int>(rng() % 4);
  for (int e = 0; e < edits; ++e) {
    const std::size_t at = rng() % (doc.size() + 1);
    switch (rng() % 4) {
      case 0:
        doc.insert(at, 1, alphabet[rng() % alphabet.size()]);
        break;
      case 1:
        if (at < doc.size()) doc.erase(at, 1 + rng() % 8);
        break;
      case 2:
        if (at < doc.size()) doc[at] = alphabet[rng() % alphabet.size()];
        break;
      default:
        if (!doc.empty()) doc.insert(at, doc.substr(rng() % doc.size(), rng() % 16));
    }
  }
  return doc;
}

}  // namespace podsim::testing
