//! Who may call: the checks every request passes before it reaches a handler. Pure functions of
//! the request's head (tests beside); `lib.rs` runs them as one middleware.
//!
//! - `Host` names this server (127.0.0.1, localhost or [::1] with its port): a page on another
//!   site that a DNS rebinding points here carries its own host.
//! - API calls carry the token: the `x-lens-token` header or the `lens_token` cookie; a GET may
//!   carry it as `?token=` (page images in `<img src>`), a POST may not (a cross-site form could).
//! - A state-changing request from a page of another origin is refused (browsers send `Origin`).

use axum::http::HeaderMap;

/// Compare in constant time (`subtle`), so timing tells nothing about the token (its length is
/// no secret).
pub fn same_secret(a: &str, b: &str) -> bool {
    use subtle::ConstantTimeEq;
    a.len() == b.len() && bool::from(a.as_bytes().ct_eq(b.as_bytes()))
}

fn header<'a>(h: &'a HeaderMap, name: &str) -> Option<&'a str> {
    h.get(name).and_then(|v| v.to_str().ok())
}

/// The names this server answers to: the loopback names with its port, and the address it
/// listens on beyond loopback; origins by `http://`, or `https://` when it serves TLS.
#[derive(Debug, Clone)]
pub struct Names {
    hosts: Vec<String>,
    origins: Vec<String>,
}

impl Names {
    /// `names`: the DNS names clients reach the server by (its certificate's), beside the
    /// address it listens on; on the scheme's own port (443, 80) a name without the port too,
    /// as clients send it.
    pub fn new(port: u16, beyond_loopback: Option<&str>, tls: bool, names: &[String]) -> Names {
        let mut hosts = vec![format!("127.0.0.1:{port}"), format!("localhost:{port}"), format!("[::1]:{port}")];
        let default_port = port == if tls { 443 } else { 80 };
        for h in beyond_loopback.into_iter().chain(names.iter().map(String::as_str)) {
            let h = h.trim().to_ascii_lowercase();
            hosts.push(format!("{h}:{port}"));
            if default_port {
                hosts.push(h);
            }
        }
        let scheme = if tls { "https" } else { "http" };
        let origins = hosts.iter().map(|h| format!("{scheme}://{h}")).collect();
        Names { hosts, origins }
    }
}

/// Is the request for this server by name?
pub fn host_ok(h: &HeaderMap, names: &Names) -> bool {
    let host = header(h, "host").map(str::to_ascii_lowercase);
    host.is_some_and(|h| names.hosts.contains(&h))
}

/// No `Origin`, or this server's own.
pub fn origin_ok(h: &HeaderMap, names: &Names) -> bool {
    match header(h, "origin").map(str::to_ascii_lowercase) {
        None => true,
        Some(o) => names.origins.contains(&o),
    }
}

/// The token cookie's name: over TLS `__Host-lens_token` (the browser keeps it only if it came
/// `Secure`, from this host, for `/`), else `lens_token`.
pub fn cookie_name(tls: bool) -> &'static str {
    if tls {
        "__Host-lens_token"
    } else {
        "lens_token"
    }
}

/// The `Set-Cookie` value giving the browser `token`: HttpOnly, SameSite=Strict, for `/`;
/// `Secure` (and the `__Host-` name) when the server is reached over TLS.
pub fn token_cookie(token: &str, tls: bool) -> String {
    let mut c = cookie::Cookie::build((cookie_name(tls), token)).http_only(true).same_site(cookie::SameSite::Strict).path("/");
    if tls {
        c = c.secure(true);
    }
    c.build().to_string()
}

/// The token cookie, when sent (its `__Host-` name first, over TLS or not).
pub fn cookie_token(h: &HeaderMap) -> Option<String> {
    let sent: Vec<cookie::Cookie<'_>> =
        h.get_all("cookie").iter().filter_map(|v| v.to_str().ok()).flat_map(|c| cookie::Cookie::split_parse(c).filter_map(Result::ok)).collect();
    [cookie_name(true), cookie_name(false)].iter().find_map(|n| sent.iter().find(|c| c.name() == *n).map(|c| c.value().to_string()))
}

/// The token a request carries where its method allows: the header, else the cookie, else for
/// a GET the query's `token` (a POST's URL could come from a cross-site form).
pub fn given_token(h: &HeaderMap, is_get: bool, query_token: Option<&str>) -> Option<String> {
    header(h, "x-lens-token").map(str::to_string).or_else(|| cookie_token(h)).or_else(|| if is_get { query_token.map(str::to_string) } else { None })
}

/// The query's parameters, decoded (`+` and `%XX`).
pub fn query_params(query: Option<&str>) -> Vec<(String, String)> {
    form_urlencoded::parse(query.unwrap_or("").as_bytes()).into_owned().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    /// Does the request carry `secret` where its method allows?
    fn token_ok(h: &HeaderMap, is_get: bool, query_token: Option<&str>, secret: &str) -> bool {
        given_token(h, is_get, query_token).as_deref().is_some_and(|g| same_secret(g, secret))
    }

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn secrets_are_equal_only_when_every_byte_is() {
        for (a, b, same) in [("3f9a", "3f9a", true), ("3f9a", "3f9b", false), ("3f9a", "3f9a0", false), ("", "", true), ("3f9a", "", false)] {
            assert_eq!(same_secret(a, b), same, "{a:?} {b:?}");
        }
    }

    #[test]
    fn host_and_origin_name_this_server() {
        let n = Names::new(8765, None, false, &[]);
        assert!(host_ok(&headers(&[("host", "127.0.0.1:8765")]), &n));
        assert!(host_ok(&headers(&[("host", "LOCALHOST:8765")]), &n));
        assert!(!host_ok(&headers(&[("host", "evil.example:8765")]), &n));
        assert!(!host_ok(&headers(&[("host", "127.0.0.1:9999")]), &n));
        assert!(!host_ok(&headers(&[]), &n));
        assert!(origin_ok(&headers(&[]), &n));
        assert!(origin_ok(&headers(&[("origin", "http://localhost:8765")]), &n));
        assert!(!origin_ok(&headers(&[("origin", "http://evil.example")]), &n));
        // beyond loopback over TLS: its address is a name, https its origin
        let t = Names::new(443, Some("10.0.0.5"), true, &["Lens.Firm.Local".to_string()]);
        assert!(host_ok(&headers(&[("host", "10.0.0.5:443")]), &t));
        // a DNS name given: with and without the default port, its https origin
        assert!(host_ok(&headers(&[("host", "lens.firm.local")]), &t));
        assert!(host_ok(&headers(&[("host", "lens.firm.local:443")]), &t));
        assert!(origin_ok(&headers(&[("origin", "https://lens.firm.local")]), &t));
        assert!(!host_ok(&headers(&[("host", "other.firm.local")]), &t));
        let off = Names::new(8443, None, true, &["lens.firm.local".to_string()]);
        assert!(!host_ok(&headers(&[("host", "lens.firm.local")]), &off), "on another port the port is part of the name");
        assert!(origin_ok(&headers(&[("origin", "https://10.0.0.5:443")]), &t));
        assert!(!origin_ok(&headers(&[("origin", "http://10.0.0.5:443")]), &t));
    }

    #[test]
    fn the_token_where_the_method_allows() {
        let s = "abcd";
        assert!(token_ok(&headers(&[("x-lens-token", "abcd")]), false, None, s));
        assert!(token_ok(&headers(&[("cookie", "a=b; lens_token=abcd")]), false, None, s));
        assert!(!token_ok(&headers(&[("cookie", "lens_token=nope")]), false, None, s));
        assert!(token_ok(&headers(&[]), true, Some("abcd"), s));
        assert!(!token_ok(&headers(&[]), false, Some("abcd"), s), "a POST's URL token is not enough");
        assert!(!token_ok(&headers(&[("x-lens-token", "abce")]), false, None, s));
    }

    #[test]
    fn the_token_cookie_is_secure_and_host_only_over_tls() {
        assert_eq!(token_cookie("abc", false), "lens_token=abc; HttpOnly; SameSite=Strict; Path=/");
        assert_eq!(token_cookie("abc", true), "__Host-lens_token=abc; HttpOnly; SameSite=Strict; Secure; Path=/");
        // read back under either name; the __Host- one first
        assert_eq!(cookie_token(&headers(&[("cookie", "a=b; __Host-lens_token=t1")])).as_deref(), Some("t1"));
        assert_eq!(cookie_token(&headers(&[("cookie", "lens_token=t0; __Host-lens_token=t1")])).as_deref(), Some("t1"));
        assert_eq!(cookie_token(&headers(&[("cookie", "lens_token=t0")])).as_deref(), Some("t0"));
        assert_eq!(cookie_token(&headers(&[("cookie", "lens_tokens=x; a=\"b\"")])), None);
    }

    #[test]
    fn query_parameters_are_decoded() {
        assert_eq!(
            query_params(Some("doc=A%20B&page=3&q=a+b&bad=%zz&end=%4")),
            [
                ("doc".to_string(), "A B".to_string()),
                ("page".into(), "3".into()),
                ("q".into(), "a b".into()),
                ("bad".into(), "%zz".into()),
                ("end".into(), "%4".into())
            ]
        );
        assert!(query_params(None).is_empty());
    }
}
