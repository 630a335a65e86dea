#include "tools/gen/text_pool.h"

#include <span>
#include <vector>

namespace quiver::gen {
namespace {

struct Weighted {
  std::string_view word;
  int weight;
};

// Word lists and weights of clause 4.2.2.10.
constexpr Weighted kNouns[] = {
    {"packages", 40},      {"requests", 40},     {"accounts", 40},    {"deposits", 40},
    {"foxes", 20},         {"ideas", 20},        {"theodolites", 20}, {"pinto beans", 20},
    {"instructions", 20},  {"dependencies", 10}, {"excuses", 10},     {"platelets", 10},
    {"asymptotes", 10},    {"courts", 5},        {"dolphins", 5},     {"multipliers", 1},
    {"sauternes", 1},      {"warthogs", 1},      {"frets", 1},        {"dinos", 1},
    {"attainments", 1},    {"somas", 1},         {"Tiresias", 1},     {"patterns", 1},
    {"forges", 1},         {"braids", 1},        {"frays", 1},        {"warhorses", 1},
    {"dugouts", 1},        {"notornis", 1},      {"epitaphs", 1},     {"pearls", 1},
    {"tithes", 1},         {"waters", 1},        {"orbits", 1},       {"gifts", 1},
    {"sheaves", 1},        {"depths", 1},        {"sentiments", 1},   {"decoys", 1},
    {"realms", 1},         {"pains", 1},         {"grouches", 1},     {"escapades", 1},
    {"hockey players", 1},
};
constexpr Weighted kVerbs[] = {
    {"sleep", 20},    {"wake", 20},    {"are", 20},   {"cajole", 20}, {"haggle", 20},
    {"nag", 10},      {"use", 10},     {"boost", 10}, {"affix", 5},   {"detect", 5},
    {"integrate", 5}, {"maintain", 1}, {"nod", 1},    {"was", 1},     {"lose", 1},
    {"sublate", 1},   {"solve", 1},    {"thrash", 1}, {"promise", 1}, {"engage", 1},
    {"hinder", 1},    {"print", 1},    {"x-ray", 1},  {"breach", 1},  {"eat", 1},
    {"grow", 1},      {"impress", 1},  {"mold", 1},   {"poach", 1},   {"serve", 1},
    {"run", 1},       {"dazzle", 1},   {"snooze", 1}, {"doze", 1},    {"unwind", 1},
    {"kindle", 1},    {"play", 1},     {"hang", 1},   {"believe", 1}, {"doubt", 1},
};
constexpr Weighted kAdjectives[] = {
    {"special", 20}, {"pending", 20}, {"unusual", 20}, {"express", 20}, {"furious", 1},
    {"sly", 1},      {"careful", 1},  {"blithe", 1},   {"quick", 1},    {"fluffy", 1},
    {"slow", 1},     {"quiet", 1},    {"ruthless", 1}, {"thin", 1},     {"close", 1},
    {"dogged", 1},   {"daring", 1},   {"brave", 1},    {"stealthy", 1}, {"permanent", 1},
    {"enticing", 1}, {"idle", 1},     {"busy", 1},     {"regular", 50}, {"final", 40},
    {"ironic", 40},  {"even", 30},    {"bold", 20},    {"silent", 10},
};
constexpr Weighted kAdverbs[] = {
    {"sometimes", 1},  {"always", 1},     {"never", 1},      {"furiously", 50},  {"slyly", 50},
    {"carefully", 50}, {"blithely", 40},  {"quickly", 30},   {"fluffily", 20},   {"slowly", 1},
    {"quietly", 1},    {"ruthlessly", 1}, {"thinly", 1},     {"closely", 1},     {"doggedly", 1},
    {"daringly", 1},   {"bravely", 1},    {"stealthily", 1}, {"permanently", 1}, {"enticingly", 1},
    {"idly", 1},       {"busily", 1},     {"regularly", 1},  {"finally", 1},     {"ironically", 1},
    {"evenly", 1},     {"boldly", 1},     {"silently", 1},
};
constexpr Weighted kPrepositions[] = {
    {"about", 50},
    {"above", 50},
    {"according to", 50},
    {"across", 50},
    {"after", 50},
    {"against", 40},
    {"along", 40},
    {"alongside of", 30},
    {"among", 30},
    {"around", 20},
    {"at", 10},
    {"atop", 1},
    {"before", 1},
    {"behind", 1},
    {"beneath", 1},
    {"beside", 1},
    {"besides", 1},
    {"between", 1},
    {"beyond", 1},
    {"by", 1},
    {"despite", 1},
    {"during", 1},
    {"except", 1},
    {"for", 1},
    {"from", 1},
    {"in place of", 1},
    {"inside", 1},
    {"instead of", 1},
    {"into", 1},
    {"near", 1},
    {"of", 1},
    {"on", 1},
    {"outside", 1},
    {"over", 1},
    {"past", 1},
    {"since", 1},
    {"through", 1},
    {"throughout", 1},
    {"to", 1},
    {"toward", 1},
    {"under", 1},
    {"until", 1},
    {"up", 1},
    {"upon", 1},
    {"without", 1},
    {"with", 1},
    {"within", 1},
};
constexpr Weighted kAuxiliaries[] = {
    {"do", 1},
    {"may", 1},
    {"might", 1},
    {"shall", 1},
    {"will", 1},
    {"would", 1},
    {"can", 1},
    {"could", 1},
    {"should", 1},
    {"ought to", 1},
    {"must", 1},
    {"will have to", 1},
    {"shall have to", 1},
    {"could have to", 1},
    {"should have to", 1},
    {"must have to", 1},
    {"need to", 1},
    {"try to", 1},
};
constexpr Weighted kTerminators[] = {{".", 50}, {";", 1}, {":", 1}, {"?", 1}, {"!", 1}, {"--", 1}};

// Productions, as strings of symbols: N V J D P X T, and the non-terminals
// n (noun phrase), v (verb phrase), p (prepositional phrase), ',' (comma).
constexpr Weighted kSentences[] = {
    {"nvT", 3}, {"nvpT", 3}, {"nvnT", 3}, {"npvnT", 1}, {"npvpT", 1}};
constexpr Weighted kNounPhrases[] = {{"N", 10}, {"JN", 20}, {"J,JN", 10}, {"DJN", 50}};
constexpr Weighted kVerbPhrases[] = {{"V", 30}, {"XV", 1}, {"VD", 40}, {"XVD", 1}};

// O(1) weighted choice: the index of each entry repeated `weight` times.
class Picker {
 public:
  explicit Picker(std::span<const Weighted> list) : list_(list) {
    for (size_t i = 0; i < list.size(); ++i) {
      table_.insert(table_.end(), static_cast<size_t>(list[i].weight), static_cast<uint8_t>(i));
    }
  }
  std::string_view Pick(Rng& rng) const {
    return list_[table_[static_cast<size_t>(rng.Below(static_cast<int64_t>(table_.size())))]].word;
  }

 private:
  std::span<const Weighted> list_;
  std::vector<uint8_t> table_;
};

class Grammar {
 public:
  Grammar()
      : nouns_(kNouns),
        verbs_(kVerbs),
        adjectives_(kAdjectives),
        adverbs_(kAdverbs),
        prepositions_(kPrepositions),
        auxiliaries_(kAuxiliaries),
        terminators_(kTerminators),
        sentences_(kSentences),
        noun_phrases_(kNounPhrases),
        verb_phrases_(kVerbPhrases) {}

  // Appends one sentence and a trailing space.
  void Sentence(Rng& rng, std::string* out) const {
    Expand(sentences_.Pick(rng), rng, out);
    out->push_back(' ');
  }

 private:
  void Word(std::string_view w, std::string* out) const {
    if (!out->empty() && out->back() != ' ') out->push_back(' ');
    out->append(w);
  }
  void Expand(std::string_view symbols, Rng& rng, std::string* out) const {
    for (char s : symbols) {
      switch (s) {
        case 'n':
          Expand(noun_phrases_.Pick(rng), rng, out);
          break;
        case 'v':
          Expand(verb_phrases_.Pick(rng), rng, out);
          break;
        case 'p':
          Word(prepositions_.Pick(rng), out);
          Word("the", out);
          Expand(noun_phrases_.Pick(rng), rng, out);
          break;
        case 'N':
          Word(nouns_.Pick(rng), out);
          break;
        case 'V':
          Word(verbs_.Pick(rng), out);
          break;
        case 'J':
          Word(adjectives_.Pick(rng), out);
          break;
        case 'D':
          Word(adverbs_.Pick(rng), out);
          break;
        case 'X':
          Word(auxiliaries_.Pick(rng), out);
          break;
        case 'T':
          out->append(terminators_.Pick(rng));
          break;  // no space before
        case ',':
          out->push_back(',');
          break;
        default:
          break;
      }
    }
  }

  Picker nouns_, verbs_, adjectives_, adverbs_, prepositions_, auxiliaries_, terminators_;
  Picker sentences_, noun_phrases_, verb_phrases_;
};

}  // namespace

TextPool TextPool::Make(uint64_t seed, int64_t size) {
  const Grammar grammar;
  Rng rng(Mix64(seed ^ 0x7465787420706f6fULL));  // "text poo"
  std::string text;
  text.reserve(static_cast<size_t>(size) + 256);
  while (static_cast<int64_t>(text.size()) < size) grammar.Sentence(rng, &text);
  text.resize(static_cast<size_t>(size));
  return TextPool(std::move(text));
}

int RandomVString(Rng& rng, int min_len, int max_len, char* out) {
  static constexpr char kAlphabet[] =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789,.";
  static_assert(sizeof(kAlphabet) == 65);
  const int len = static_cast<int>(rng.Uniform(min_len, max_len));
  // Ten 6-bit letters per 64-bit draw.
  uint64_t bits = 0;
  int left = 0;
  for (int i = 0; i < len; ++i) {
    if (left == 0) {
      bits = rng.Next();
      left = 10;
    }
    out[i] = kAlphabet[bits & 63];
    bits >>= 6;
    --left;
  }
  return len;
}

}  // namespace quiver::gen
