#include "common/broker/redis_url.h"

#include <fstream>

#include "common/util/error.h"

namespace mrd::broker {
namespace {

int parse_number(const std::string& s, const std::string& what, const std::string& url) {
  MRD_USER_CHECK(!s.empty() && s.size() <= 9 && s.find_first_not_of("0123456789") == std::string::npos,
                 "broker URL ", url, ": bad ", what, " '", s, "'");
  return std::stoi(s);
}

/// Splits "USER:PASSWORD@" off the front of `rest`.
void take_credentials(std::string& rest, RedisEndpoint& e) {
  auto at = rest.find('@');
  if (at == std::string::npos) return;
  std::string cred = rest.substr(0, at);
  rest = rest.substr(at + 1);
  auto colon = cred.find(':');
  if (colon == std::string::npos) {
    e.password = cred;  // redis://PASSWORD@HOST, as redis-cli accepts it
  } else {
    e.user = cred.substr(0, colon);
    e.password = cred.substr(colon + 1);
  }
}

}  // namespace

std::string RedisEndpoint::text() const {
  std::string who = user.empty() ? "" : user + "@";
  if (!unix_path.empty())
    return "unix://" + who + unix_path + (db ? "?db=" + std::to_string(db) : "");
  return "redis://" + who + host + ":" + std::to_string(port) + (db ? "/" + std::to_string(db) : "");
}

RedisEndpoint parse_redis_url(const std::string& url) {
  RedisEndpoint e;
  std::string rest;
  if (url.rfind("unix://", 0) == 0) {
    rest = url.substr(7);
    take_credentials(rest, e);
    auto q = rest.find('?');
    if (q != std::string::npos) {
      std::string query = rest.substr(q + 1);
      rest = rest.substr(0, q);
      MRD_USER_CHECK(query.rfind("db=", 0) == 0, "broker URL ", url, ": the only query is ?db=N");
      e.db = parse_number(query.substr(3), "database", url);
    }
    MRD_USER_CHECK(!rest.empty() && rest[0] == '/', "broker URL ", url,
                   ": a Unix socket URL is unix:///absolute/path");
    e.unix_path = rest;
    return e;
  }
  MRD_USER_CHECK(url.rfind("redis://", 0) == 0, "broker URL ", url,
                 ": expected redis://HOST[:PORT][/DB] or unix:///PATH");
  rest = url.substr(8);
  take_credentials(rest, e);
  auto slash = rest.find('/');
  if (slash != std::string::npos) {
    std::string db = rest.substr(slash + 1);
    rest = rest.substr(0, slash);
    if (!db.empty()) e.db = parse_number(db, "database", url);
  }
  auto colon = rest.rfind(':');
  if (colon != std::string::npos && rest.find(']') == std::string::npos) {
    e.port = parse_number(rest.substr(colon + 1), "port", url);
    rest = rest.substr(0, colon);
  }
  MRD_USER_CHECK(e.port > 0 && e.port < 65536, "broker URL ", url, ": port out of range");
  MRD_USER_CHECK(!rest.empty(), "broker URL ", url, ": no host");
  e.host = rest;
  return e;
}

void read_password_file(RedisEndpoint& endpoint, const std::string& path) {
  std::ifstream in(path);
  MRD_USER_CHECK(in, "cannot read the broker password file ", path);
  std::string line;
  std::getline(in, line);
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
  MRD_USER_CHECK(!line.empty(), "broker password file ", path, " is empty");
  auto space = line.find(' ');
  if (space == std::string::npos) {
    endpoint.password = line;
  } else {
    endpoint.user = line.substr(0, space);
    endpoint.password = line.substr(space + 1);
  }
}

}  // namespace mrd::broker
