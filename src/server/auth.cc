// Password hashing (libsodium Argon2id), the users file and bearer tokens.
#include "server/auth.h"

#include <sodium.h>

#include <fstream>
#include <sstream>
#include <vector>

#include <sys/stat.h>

#include "common/io.h"

namespace quiver::server {
namespace {

// OWASP's minimum Argon2id configuration: 19 MiB, 2 iterations, 1 lane.
constexpr unsigned long long kOpsLimit = 2;
constexpr size_t kMemLimit = 19456 * 1024;

Status InitSodium() {
  static const int rc = sodium_init();
  if (rc < 0) return Status::UnknownError("libsodium failed to initialise");
  return Status::OK();
}

bool ValidUserName(std::string_view name) {
  if (name.empty() || name.size() > 128) return false;
  for (unsigned char c : name) {
    if (c <= ' ' || c == ':' || c == 0x7F) return false;
  }
  return true;
}

}  // namespace

Result<std::string> HashPassword(std::string_view password) {
  QUIVER_RETURN_NOT_OK(InitSodium());
  if (password.empty()) return Status::Invalid("empty password");
  char out[crypto_pwhash_STRBYTES];
  if (crypto_pwhash_str_alg(out, password.data(), password.size(), kOpsLimit, kMemLimit,
                            crypto_pwhash_ALG_ARGON2ID13) != 0) {
    return Status::OutOfMemory("cannot hash the password (Argon2id needs {} MiB)", kMemLimit >> 20);
  }
  return std::string(out);
}

bool VerifyPassword(std::string_view hash, std::string_view password) {
  if (!InitSodium().ok() || hash.size() >= crypto_pwhash_STRBYTES) return false;
  const std::string h(hash);  // NUL-terminated
  return crypto_pwhash_str_verify(h.c_str(), password.data(), password.size()) == 0;
}

Result<std::map<std::string, std::string>> ReadUsersFile(const std::string& path) {
  QUIVER_ASSIGN_OR_RAISE(auto data, ReadFileFully(path));
  std::map<std::string, std::string> users;
  std::istringstream in(std::string(data->view()));
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    const size_t colon = line.find(':');
    const std::string name = line.substr(0, colon);
    if (colon == std::string::npos || !ValidUserName(name)) {
      return Status::Invalid("{}: line {}: expected 'name:hash' (create lines with quiver passwd)",
                             path, number);
    }
    const std::string hash = line.substr(colon + 1);
    if (hash.rfind("$argon2id$", 0) != 0 || hash.size() >= crypto_pwhash_STRBYTES) {
      return Status::Invalid(
          "{}: line {}: the hash of user '{}' is not an Argon2id string (create it with quiver "
          "passwd)",
          path, number, name);
    }
    users[name] = hash;
  }
  if (users.empty()) return Status::Invalid("{}: no users", path);
  return users;
}

Status WriteUser(const std::string& path, const std::string& user, const std::string& hash) {
  if (!ValidUserName(user)) {
    return Status::Invalid("invalid user name '{}' (no spaces, colons or control characters)",
                           user);
  }
  std::vector<std::string> lines;
  {
    std::ifstream in(path);
    std::string line;
    while (in && std::getline(in, line)) {
      if (line.rfind(user + ":", 0) != 0) lines.push_back(line);
    }
  }
  lines.push_back(user + ":" + hash);
  QUIVER_ASSIGN_OR_RAISE(auto file, AtomicFile::Create(path));
  for (const auto& l : lines) {
    const std::string text = l + "\n";
    QUIVER_RETURN_NOT_OK(file->Write(text.data(), static_cast<int64_t>(text.size())));
  }
  QUIVER_RETURN_NOT_OK(file->Commit());
  // Hashes are not secrets, but nobody else needs to read them.
  ::chmod(path.c_str(), 0600);
  return Status::OK();
}

Authenticator::Authenticator(std::map<std::string, std::string> users,
                             std::chrono::seconds token_ttl)
    : users_(std::move(users)), ttl_(token_ttl) {}

std::string RandomHex(size_t n) {
  (void)InitSodium();
  std::string raw(n, '\0');
  randombytes_buf(raw.data(), n);
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : raw) {
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
  return out;
}

std::string Authenticator::Issue(const std::string& user, const std::string& session) {
  unsigned char raw[32];
  randombytes_buf(raw, sizeof(raw));
  std::string token = Base64Encode(std::string_view(reinterpret_cast<char*>(raw), sizeof(raw)));
  tokens_[token] = Token{user, session, Clock::now()};
  if (++issued_since_sweep_ >= 256) DropExpired();
  return token;
}

void Authenticator::DropExpired() {
  issued_since_sweep_ = 0;
  const auto now = Clock::now();
  for (auto it = tokens_.begin(); it != tokens_.end();) {
    it = now - it->second.issued >= ttl_ ? tokens_.erase(it) : std::next(it);
  }
}

Result<Authenticator::Identity> Authenticator::Authenticate(std::string_view authorization) {
  QUIVER_RETURN_NOT_OK(InitSodium());
  Identity id;
  auto starts_with = [&](std::string_view prefix) {
    if (authorization.size() < prefix.size()) return false;
    for (size_t i = 0; i < prefix.size(); ++i) {
      if (std::tolower(static_cast<unsigned char>(authorization[i])) != prefix[i]) return false;
    }
    return true;
  };
  if (starts_with("bearer ")) {
    const std::string token(authorization.substr(7));
    std::lock_guard<std::mutex> lock(mu_);
    auto it = tokens_.find(token);
    if (it == tokens_.end()) {
      return Status::Invalid("invalid or expired bearer token; authenticate again")
          .WithSqlState(sqlstate::kInvalidAuthorizationSpecification);
    }
    const auto age = Clock::now() - it->second.issued;
    if (age >= ttl_) {
      tokens_.erase(it);
      return Status::Invalid("bearer token expired; authenticate again")
          .WithSqlState(sqlstate::kInvalidAuthorizationSpecification);
    }
    id.user = it->second.user;
    id.session = it->second.session;
    id.token = token;
    if (age * 2 >= ttl_) id.new_token = Issue(id.user, id.session);
    return id;
  }
  if (starts_with("basic ")) {
    auto decoded = Base64Decode(authorization.substr(6));
    const size_t colon = decoded ? decoded->find(':') : std::string::npos;
    if (colon == std::string::npos)
      return Status::Invalid("malformed basic authorization header")
          .WithSqlState(sqlstate::kInvalidAuthorizationSpecification);
    const std::string user = decoded->substr(0, colon);
    const std::string password = decoded->substr(colon + 1);
    if (enabled()) {
      auto it = users_.find(user);
      // Verify against a fixed hash for unknown users too, so that timing
      // does not tell which names exist.
      static const std::string kDummy = HashPassword("quiver-dummy-password").ValueOrDie();
      const bool ok = VerifyPassword(it == users_.end() ? kDummy : it->second, password);
      if (it == users_.end() || !ok)
        return Status::Invalid("invalid user name or password")
            .WithSqlState(sqlstate::kInvalidPassword);
    }
    id.user = enabled() ? user : (user.empty() ? "anonymous" : user);
    id.session = RandomHex(16);
    std::lock_guard<std::mutex> lock(mu_);
    id.token = Issue(id.user, id.session);
    id.new_token = id.token;
    return id;
  }
  if (authorization.empty()) {
    if (enabled())
      return Status::Invalid("authentication required (basic or bearer)")
          .WithSqlState(sqlstate::kInvalidAuthorizationSpecification);
    id.user = "anonymous";
    return id;
  }
  return Status::Invalid("unsupported authorization scheme (use Basic or Bearer)")
      .WithSqlState(sqlstate::kInvalidAuthorizationSpecification);
}

void Authenticator::RevokeSession(const std::string& session) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = tokens_.begin(); it != tokens_.end();) {
    it = it->second.session == session ? tokens_.erase(it) : std::next(it);
  }
}

std::string Base64Encode(std::string_view bytes) {
  static const char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const uint32_t v = (uint32_t{static_cast<uint8_t>(bytes[i])} << 16) |
                       (uint32_t{static_cast<uint8_t>(bytes[i + 1])} << 8) |
                       static_cast<uint8_t>(bytes[i + 2]);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  if (i + 1 == bytes.size()) {
    const uint32_t v = uint32_t{static_cast<uint8_t>(bytes[i])} << 16;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += "==";
  } else if (i + 2 == bytes.size()) {
    const uint32_t v = (uint32_t{static_cast<uint8_t>(bytes[i])} << 16) |
                       (uint32_t{static_cast<uint8_t>(bytes[i + 1])} << 8);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

std::optional<std::string> Base64Decode(std::string_view text) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  // Padding is optional: Go's Flight client sends unpadded base64.
  if (text.size() % 4 == 0 && !text.empty() && text.back() == '=') {
    text.remove_suffix(1);
    if (!text.empty() && text.back() == '=') text.remove_suffix(1);
  }
  if (text.size() % 4 == 1) return std::nullopt;
  std::string out;
  uint32_t bits = 0;
  int count = 0;
  for (char c : text) {
    const int v = value(c);
    if (v < 0) return std::nullopt;
    bits = (bits << 6) | static_cast<uint32_t>(v);
    if (++count == 4) {
      out += static_cast<char>((bits >> 16) & 0xFF);
      out += static_cast<char>((bits >> 8) & 0xFF);
      out += static_cast<char>(bits & 0xFF);
      bits = 0;
      count = 0;
    }
  }
  if (count == 2) {
    out += static_cast<char>((bits >> 4) & 0xFF);
  } else if (count == 3) {
    out += static_cast<char>((bits >> 10) & 0xFF);
    out += static_cast<char>((bits >> 2) & 0xFF);
  }
  return out;
}

}  // namespace quiver::server
