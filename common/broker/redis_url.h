// Where the broker is and how to log in: a redis://[USER[:PASSWORD]@]HOST[:PORT][/DB] or
// unix://[USER[:PASSWORD]@]/PATH[?db=DB] URL, plus an optional password file (its first line;
// "USER PASSWORD" names an ACL user too). The password never appears in logs: text() omits it.
#pragma once

#include <string>

namespace mrd::broker {

struct RedisEndpoint {
  std::string host;       ///< empty for a Unix socket
  int port = 6379;
  std::string unix_path;  ///< empty for TCP
  int db = 0;
  std::string user;      ///< empty: AUTH with the password alone (the default user)
  std::string password;  ///< empty: no AUTH
  /// The URL without the password, for logs and status.
  std::string text() const;
};

/// Parses a broker URL; throws UserError saying what is wrong.
RedisEndpoint parse_redis_url(const std::string& url);

/// Sets the password (and the user, for "USER PASSWORD") from the first line of `path`;
/// throws UserError when the file cannot be read or is empty.
void read_password_file(RedisEndpoint& endpoint, const std::string& path);

}  // namespace mrd::broker
