// Users, password hashes and bearer tokens of `quiver serve`.
//
// Users file: one user per line, `name:hash`, where hash is libsodium's
// Argon2id string ($argon2id$v=19$m=19456,t=2,p=1$salt$hash; the OWASP
// minimum parameters, so that many clients connecting at once cost tens, not
// thousands, of MiB). Blank lines and lines starting with '#' are ignored.
// `quiver passwd` writes such lines.
//
// A client authenticates with HTTP basic auth (in the Handshake's headers,
// or on any call) and gets a random 256-bit bearer token that expires
// `token_ttl` after it was issued. A token used in the second half of its
// life is replaced by a fresh one (sent back in the response headers, which
// Flight clients pick up).
//
// Thread-safety: all methods are thread-safe.
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"

namespace quiver::server {

// The Argon2id string for `password`.
Result<std::string> HashPassword(std::string_view password);
bool VerifyPassword(std::string_view hash, std::string_view password);

// Reads and checks a users file (every hash must be an Argon2id string).
Result<std::map<std::string, std::string>> ReadUsersFile(const std::string& path);
// Adds or replaces `user` in the users file at `path` (created when missing).
Status WriteUser(const std::string& path, const std::string& user, const std::string& hash);

class Authenticator {
 public:
  using Clock = std::chrono::steady_clock;

  // No users: every call is accepted (as user "anonymous"); Handshake still
  // hands out tokens so clients that always authenticate work.
  Authenticator(std::map<std::string, std::string> users, std::chrono::seconds token_ttl);

  bool enabled() const { return !users_.empty(); }

  struct Identity {
    std::string user;
    std::string token;      // the token the call presented or was given
    std::string new_token;  // set when the caller should switch to this token
    // The session the token belongs to: a basic-auth login starts one, and
    // tokens that replace an expiring token keep it. Empty without a token.
    std::string session;
  };

  // Checks an `authorization` header value: "Basic base64(user:password)" or
  // "Bearer token". Empty header: accepted only when auth is disabled.
  // Errors are meant for UNAUTHENTICATED answers.
  Result<Identity> Authenticate(std::string_view authorization);
  // Forgets every token of `session` (CloseSession).
  void RevokeSession(const std::string& session);

 private:
  struct Token {
    std::string user;
    std::string session;
    Clock::time_point issued;
  };
  // REQUIRES: mu_ held.
  std::string Issue(const std::string& user, const std::string& session);
  void DropExpired();  // REQUIRES: mu_ held

  std::map<std::string, std::string> users_;  // name -> Argon2id string
  std::chrono::seconds ttl_;
  std::mutex mu_;
  std::map<std::string, Token> tokens_;  // GUARDED_BY(mu_)
  int64_t issued_since_sweep_ = 0;       // GUARDED_BY(mu_)
};

// n random bytes from libsodium's CSPRNG, as lower-case hex.
std::string RandomHex(size_t n);

// base64 (RFC 4648). Encode pads; Decode takes padded or unpadded text and
// fails on anything else.
std::string Base64Encode(std::string_view bytes);
std::optional<std::string> Base64Decode(std::string_view text);

}  // namespace quiver::server
