//! Far-memory addresses: `redis://[user[:password]@]host:port[,host:port...]/NAME`, or
//! `rediss://` for TLS. Several seed nodes may be given; one is enough to find a
//! cluster. A password is better given in `SWAPLESS_REDIS_PASSWORD` (and a user in
//! `SWAPLESS_REDIS_USER`), so that it never shows in `ps`.

use crate::FarError;

/// The environment variable a password is read from when the address has none.
pub const PASSWORD_VARIABLE: &str = "SWAPLESS_REDIS_PASSWORD";
/// The environment variable an ACL user name is read from when the address has none.
pub const USER_VARIABLE: &str = "SWAPLESS_REDIS_USER";
/// The environment variable naming a PEM file of the certificate authority that signed
/// the servers' TLS certificates (`rediss://`), when the system's store does not hold it.
pub const CA_VARIABLE: &str = "SWAPLESS_REDIS_CA";

/// A parsed far-memory address.
#[derive(Clone, PartialEq, Eq)]
pub struct FarAddress {
    /// Whether connections use TLS (`rediss://`).
    pub tls: bool,
    /// Seed nodes, `host:port` each.
    pub seeds: Vec<String>,
    /// The ACL user, if any.
    pub user: Option<String>,
    /// The password, if any.
    pub password: Option<String>,
    /// The graph's name (empty when the address names only the cluster).
    pub name: String,
}

impl std::fmt::Debug for FarAddress {
    // The password never reaches a log or an error.
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(formatter, "{}", self.display())
    }
}

/// Whether `text` is meant as a far-memory address rather than a file path: it starts
/// with `redis://` or `rediss://` (in any case), or it looks like a URL (`redis:/g`,
/// `http://h/g`) and names no file, so that [`FarAddress::parse`] says what is wrong.
pub fn is_far_address(text: &str) -> bool {
    scheme_and_rest(text).is_some()
        || (looks_like_url(text) && !std::path::Path::new(text).exists())
}

/// Whether `text` starts like a URL: a scheme of letters (two or more), then `:/`.
fn looks_like_url(text: &str) -> bool {
    match text.split_once(":/") {
        Some((scheme, _)) => {
            scheme.len() >= 2
                && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        }
        None => false,
    }
}

/// Whether `text` uses TLS, and what follows its scheme, for `redis://` and `rediss://`
/// in any case; `None` for anything else.
fn scheme_and_rest(text: &str) -> Option<(bool, &str)> {
    let (scheme, rest) = text.split_once("://")?;
    match scheme.to_ascii_lowercase().as_str() {
        "redis" => Some((false, rest)),
        "rediss" => Some((true, rest)),
        _ => None,
    }
}

impl FarAddress {
    /// Parses `text`, taking credentials missing from it from the environment.
    pub fn parse(text: &str) -> Result<FarAddress, FarError> {
        let bad = |detail: &str| FarError::BadAddress {
            address: without_password(text),
            detail: detail.to_string(),
        };
        let Some((tls, rest)) = scheme_and_rest(text) else {
            let scheme = text.split_once(':').map_or("", |(scheme, _)| scheme);
            return Err(
                match scheme.eq_ignore_ascii_case("redis") || scheme.eq_ignore_ascii_case("rediss")
                {
                    true => bad("write it with two slashes: redis://HOST:PORT/NAME"),
                    false => bad(
                        "a graph in far memory is read from redis://HOST:PORT/NAME (rediss:// for TLS); a graph file is given by its path",
                    ),
                },
            );
        };
        let (authority, name) = match rest.split_once('/') {
            Some((authority, name)) => (authority, name.trim_end_matches('/')),
            None => (rest, ""),
        };
        if !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
        {
            return Err(bad(
                "a graph's name may hold only letters, digits, '.', '_' and '-'",
            ));
        }
        let (credentials, hosts) = match authority.rsplit_once('@') {
            Some((credentials, hosts)) => (Some(credentials), hosts),
            None => (None, authority),
        };
        let (mut user, mut password) = match credentials {
            None => (None, None),
            Some(credentials) => match credentials.split_once(':') {
                Some((user, password)) => (
                    Some(percent_decode(user)).filter(|user| !user.is_empty()),
                    Some(percent_decode(password)),
                ),
                None => (Some(percent_decode(credentials)), None),
            },
        };
        if user.is_none() {
            user = std::env::var(USER_VARIABLE).ok().filter(|u| !u.is_empty());
        }
        if password.is_none() {
            password = std::env::var(PASSWORD_VARIABLE)
                .ok()
                .filter(|p| !p.is_empty());
        }
        let mut seeds = Vec::new();
        for host in hosts.split(',') {
            if !host.starts_with('[') && host.matches(':').count() > 1 {
                return Err(bad(&format!(
                    "an IPv6 address goes in brackets, as redis://[{}]:{}/NAME",
                    &host[..host.rfind(':').unwrap_or(0)],
                    &host[host.rfind(':').map_or(0, |at| at + 1)..],
                )));
            }
            let port_at = match host.rfind(':') {
                Some(at) if !host[at..].contains(']') => at,
                _ => return Err(bad("every node needs a port (host:port)")),
            };
            let (name, port) = (&host[..port_at], &host[port_at + 1..]);
            if name.is_empty() || port.parse::<u16>().map_or(true, |port| port == 0) {
                return Err(bad(&format!("{host:?} is not host:port")));
            }
            seeds.push(host.to_string());
        }
        Ok(FarAddress {
            tls,
            seeds,
            user,
            password,
            name: name.to_string(),
        })
    }

    /// Parses `text`, which must name a graph (end in `/NAME`).
    pub fn parse_graph(text: &str) -> Result<FarAddress, FarError> {
        let address = FarAddress::parse(text)?;
        match address.name.is_empty() {
            false => Ok(address),
            true => Err(FarError::BadAddress {
                address: address.display(),
                detail: "it names no graph; end it with /NAME".to_string(),
            }),
        }
    }

    /// The address without its password, as errors and reports show it.
    pub fn display(&self) -> String {
        let scheme = if self.tls { "rediss" } else { "redis" };
        let user = self
            .user
            .as_ref()
            .map_or(String::new(), |u| format!("{u}@"));
        format!("{scheme}://{user}{}/{}", self.seeds.join(","), self.name)
    }
}

/// `text` with any password between `://user:` and `@` masked (any text: an address
/// that does not parse is masked too).
pub fn without_password(text: &str) -> String {
    match (text.find("://"), text.rfind('@')) {
        (Some(scheme_end), Some(at)) if at > scheme_end => {
            let credentials = &text[scheme_end + 3..at];
            match credentials.split_once(':') {
                Some((user, _)) => format!("{}{user}:***{}", &text[..scheme_end + 3], &text[at..]),
                None => text.to_string(),
            }
        }
        _ => text.to_string(),
    }
}

/// `%XX` sequences decoded; anything else kept as it is.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        let hex = |i: usize| bytes.get(i).and_then(|&b| (b as char).to_digit(16));
        match (bytes[at], hex(at + 1), hex(at + 2)) {
            (b'%', Some(high), Some(low)) => {
                decoded.push((high * 16 + low) as u8);
                at += 3;
            }
            (byte, _, _) => {
                decoded.push(byte);
                at += 1;
            }
        }
    }
    String::from_utf8_lossy(&decoded).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_text_loses_the_password_of_an_address_in_it() {
        for (text, shown) in [
            ("redis://:s3cret@h:1/g", "redis://:***@h:1/g"),
            (
                "rediss://user:s3cret@h:1,h:2/g",
                "rediss://user:***@h:1,h:2/g",
            ),
            ("redis://user@h:1/g", "redis://user@h:1/g"),
            ("--memory", "--memory"),
            ("/data/web.sl", "/data/web.sl"),
        ] {
            assert_eq!(without_password(text), shown, "{text}");
        }
    }

    #[test]
    fn addresses_parse_or_say_what_is_wrong() {
        let address = FarAddress::parse("redis://u:p%40ss@h1:7000,h2:7001/web").unwrap();
        assert_eq!(address.seeds, vec!["h1:7000", "h2:7001"]);
        assert_eq!(address.user.as_deref(), Some("u"));
        assert_eq!(address.password.as_deref(), Some("p@ss"));
        assert_eq!(address.name, "web");
        assert!(!address.tls);
        assert_eq!(address.display(), "redis://u@h1:7000,h2:7001/web");
        assert!(!format!("{address:?}").contains("p@ss"));
        let local = FarAddress::parse("redis://[::1]:6380/").unwrap();
        assert!(!local.tls && local.name.is_empty() && local.seeds == vec!["[::1]:6380"]);
        let tls = FarAddress::parse("rediss://h:1/g").unwrap();
        assert!(tls.tls && tls.display().starts_with("rediss://"));
        for (bad, says) in [
            ("http://h:1/g", "is read from redis://HOST:PORT/NAME"),
            ("redis:/h:1/g", "two slashes"),
            ("REDIS:h:1/g", "two slashes"),
            ("redis://::1:6379/g", "redis://[::1]:6379/NAME"),
            ("redis://h/g", "needs a port"),
            ("redis://h:0/g", "not host:port"),
            ("redis://h:99999/g", "not host:port"),
            ("redis://h:1/a b", "may hold only"),
            ("redis://:1/g", "not host:port"),
        ] {
            let error = FarAddress::parse(bad).err().unwrap().to_string();
            assert!(error.contains(says), "{bad}: {error}");
        }
        let upper = FarAddress::parse("REDISS://H:1/g").unwrap();
        assert!(upper.tls && upper.seeds == vec!["H:1"]);
        let unnamed = FarAddress::parse_graph("redis://h:1")
            .err()
            .unwrap()
            .to_string();
        assert!(unnamed.contains("end it with /NAME"), "{unnamed}");
        assert!(is_far_address("Redis://h:1/g") && is_far_address("redis:/h:1/g"));
        assert!(is_far_address("http://h/g") && !is_far_address("graph.sl"));
        let hidden = FarAddress::parse("redis://u:secret@h/g")
            .err()
            .unwrap()
            .to_string();
        assert!(!hidden.contains("secret"), "{hidden}");
    }
}
