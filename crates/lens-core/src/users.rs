//! Team users: who may call a shared library (`lens serve --team`) and as what. A user has a
//! name, a role, and a token; the store keeps only the token's SHA-256, so a copied library
//! file gives no one's token away. Removing a user keeps its row: its name stays on what it did,
//! and its token is refused with that reason.

use crate::error::{LensError, Result};
use crate::store::Store;
use rusqlite::{params, OptionalExtension};
use serde::Serialize;
use sha2::{Digest, Sha256};

named_enum!(
    /// What a user may do: readers ask and export, annotators also label, admins also add and
    /// remove filings and change settings.
    pub enum Role("role") {
        Reader = "reader",
        Annotator = "annotator",
        Admin = "admin",
    }
);

impl Role {
    /// Does this role include `needed` (reader < annotator < admin)?
    pub fn allows(self, needed: Role) -> bool {
        let rank = |r: Role| match r {
            Role::Reader => 0,
            Role::Annotator => 1,
            Role::Admin => 2,
        };
        rank(self) >= rank(needed)
    }
}

/// A user as listed (never the token).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct User {
    pub name: String,
    pub role: Role,
    pub created_at: String,
    /// When the user was removed; its token no longer works.
    pub removed_at: Option<String>,
    /// When its token stops working (UTC, `2027-06-01T00:00:00Z`); `None`: never.
    pub token_expires_at: Option<String>,
}

impl User {
    /// Has its token's time run out (at `now`, as [`utc_now`] writes it)?
    pub fn expired_at(&self, now: &str) -> bool {
        self.token_expires_at.as_deref().is_some_and(|e| e <= now)
    }
}

/// Days a new token works unless told otherwise (`--days`, `--until`, `--never`).
pub const TOKEN_DAYS: u32 = 180;

/// When a token handed out now stops working.
#[derive(Debug, Clone, PartialEq)]
pub enum Expiry {
    /// After this many days.
    Days(u32),
    /// At the start (00:00 UTC) of this day, `YYYY-MM-DD`.
    On(String),
    /// Never (a service account, say).
    Never,
}

impl Expiry {
    /// The end as stored (`2027-06-01T00:00:00Z`), or `None` for never; a day that is not a
    /// `YYYY-MM-DD` date is refused.
    pub fn at(&self) -> Result<Option<String>> {
        match self {
            Expiry::Days(d) => Ok(Some(utc_time(unix_now() + i64::from(*d) * 86_400))),
            Expiry::On(day) => {
                let ok = day.len() == 10
                    && day.char_indices().all(|(i, c)| if i == 4 || i == 7 { c == '-' } else { c.is_ascii_digit() })
                    && (1..=12).contains(&day[5..7].parse::<u32>().unwrap_or(0))
                    && (1..=31).contains(&day[8..10].parse::<u32>().unwrap_or(0));
                if !ok {
                    return Err(LensError::BadInput(format!("`{day}` is not a day: write it as YYYY-MM-DD")));
                }
                Ok(Some(format!("{day}T00:00:00Z")))
            }
            Expiry::Never => Ok(None),
        }
    }
}

fn unix_now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
}

/// The time now, UTC, as the stores write times (`2026-12-06T09:30:00Z`).
pub fn utc_now() -> String {
    utc_time(unix_now())
}

/// Seconds since 1970 as `YYYY-MM-DDTHH:MM:SSZ` (the proleptic Gregorian calendar).
fn utc_time(secs: i64) -> String {
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // days since 1970-01-01 to a civil date: eras of 400 years, March-based years
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

/// A new random token: 32 hex digits from the operating system's random source (getrandom).
pub fn new_token() -> Result<String> {
    let mut b = [0u8; 16];
    getrandom::fill(&mut b).map_err(|e| LensError::BadInput(format!("no random source for a token: {e}")))?;
    Ok(crate::text::hex(&b))
}

/// The SHA-256 a store keeps of a token.
pub fn token_hash(token: &str) -> String {
    crate::text::hex(&Sha256::digest(token.trim().as_bytes()))
}

/// A name a user can be given: 1 to 64 letters, digits, `.`, `_`, `-` or `@`.
pub fn check_name(name: &str) -> Result<()> {
    let ok = !name.is_empty() && name.len() <= 64 && name.chars().all(|c| c.is_alphanumeric() || matches!(c, '.' | '_' | '-' | '@'));
    if ok {
        Ok(())
    } else {
        Err(LensError::BadInput(format!("`{name}` is not a user name: use 1 to 64 letters, digits, '.', '_', '-' or '@'")))
    }
}

/// The columns a [`User`] is read from, in [`user_row`]'s order.
const USER_COLUMNS: &str = "name, role, created_at, removed_at, token_expires_at";

fn user_row(r: &rusqlite::Row) -> rusqlite::Result<User> {
    Ok(User {
        name: r.get(0)?,
        role: r.get::<_, String>(1)?.parse().unwrap_or(Role::Reader),
        created_at: r.get(2)?,
        removed_at: r.get(3)?,
        token_expires_at: r.get(4)?,
    })
}

impl Store {
    /// Add a user; its token, to be handed over once (only its hash is kept). A name in use,
    /// even by a removed user, is refused: the log keeps names apart.
    pub fn add_user(&self, name: &str, role: Role, expiry: &Expiry) -> Result<String> {
        check_name(name)?;
        let ends = expiry.at()?;
        if self.conn().query_row("SELECT 1 FROM users WHERE name=?1", [name], |_| Ok(())).optional()?.is_some() {
            return Err(LensError::BadInput(format!("a user named `{name}` exists already (removed users keep their names)")));
        }
        let token = new_token()?;
        self.conn().execute(
            "INSERT INTO users(name, role, token_sha256, token_expires_at) VALUES (?1, ?2, ?3, ?4)",
            params![name, role.name(), token_hash(&token), ends],
        )?;
        Ok(token)
    }

    /// A new token for a user (the old one stops working at once), ending as `expiry` says.
    pub fn new_user_token(&self, name: &str, expiry: &Expiry) -> Result<String> {
        let ends = expiry.at()?;
        let token = new_token()?;
        let n = self
            .conn()
            .execute("UPDATE users SET token_sha256=?2, token_expires_at=?3 WHERE name=?1 AND removed_at IS NULL", params![name, token_hash(&token), ends])?;
        if n == 0 {
            return Err(LensError::NotFound(format!("no user named `{name}` (or removed: add a new one)")));
        }
        Ok(token)
    }

    /// Remove a user: its token stops working; its name stays on what it did.
    pub fn remove_user(&self, name: &str) -> Result<()> {
        let n = self.conn().execute("UPDATE users SET removed_at=strftime('%Y-%m-%dT%H:%M:%SZ','now') WHERE name=?1 AND removed_at IS NULL", [name])?;
        if n == 0 {
            return Err(LensError::NotFound(format!("no user named `{name}` (or removed already)")));
        }
        Ok(())
    }

    pub fn users(&self) -> Result<Vec<User>> {
        let c = self.conn();
        let mut st = c.prepare(&format!("SELECT {USER_COLUMNS} FROM users ORDER BY name"))?;
        let rows = st.query_map([], user_row)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The user a token belongs to, removed or not; `None` for a token no one was given.
    pub fn user_by_token(&self, token: &str) -> Result<Option<User>> {
        let row = self.conn().query_row(&format!("SELECT {USER_COLUMNS} FROM users WHERE token_sha256=?1"), [token_hash(token)], user_row).optional()?;
        Ok(row)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn users_are_added_found_by_token_and_removed() {
        let s = Store::open_in_memory().unwrap();
        let t = s.add_user("ana", Role::Annotator, &Expiry::Never).unwrap();
        assert_eq!(t.len(), 32);
        let u = s.user_by_token(&t).unwrap().unwrap();
        assert_eq!((u.name.as_str(), u.role, u.removed_at.is_none()), ("ana", Role::Annotator, true));
        assert!(s.user_by_token("0".repeat(32).as_str()).unwrap().is_none());
        // the token itself is never stored
        let stored: String = s.conn().query_row("SELECT token_sha256 FROM users", [], |r| r.get(0)).unwrap();
        assert_ne!(stored, t);
        assert!(s.add_user("ana", Role::Reader, &Expiry::Never).unwrap_err().to_string().contains("exists already"));
        assert!(s.add_user("a b", Role::Reader, &Expiry::Never).unwrap_err().to_string().contains("not a user name"));
        s.remove_user("ana").unwrap();
        assert!(s.user_by_token(&t).unwrap().unwrap().removed_at.is_some());
        assert!(s.remove_user("ana").is_err());
        assert!(s.add_user("ana", Role::Reader, &Expiry::Never).is_err(), "a removed user's name stays taken");
        assert_eq!(s.users().unwrap().len(), 1);
    }

    #[test]
    fn a_token_ends_when_told_and_a_new_one_replaces_it() {
        let s = Store::open_in_memory().unwrap();
        let t = s.add_user("rob", Role::Reader, &Expiry::Days(TOKEN_DAYS)).unwrap();
        let u = s.user_by_token(&t).unwrap().unwrap();
        let ends = u.token_expires_at.clone().unwrap();
        assert!(ends > utc_now() && !u.expired_at(&utc_now()), "{ends}");
        // a new token: the old one is no one's, the new one ends on the day given
        let t2 = s.new_user_token("rob", &Expiry::On("2000-01-01".into())).unwrap();
        assert!(s.user_by_token(&t).unwrap().is_none());
        let u = s.user_by_token(&t2).unwrap().unwrap();
        assert_eq!(u.token_expires_at.as_deref(), Some("2000-01-01T00:00:00Z"));
        assert!(u.expired_at(&utc_now()));
        assert!(!s.user_by_token(&s.new_user_token("rob", &Expiry::Never).unwrap()).unwrap().unwrap().expired_at(&utc_now()));
        assert!(s.new_user_token("nobody", &Expiry::Never).unwrap_err().to_string().contains("no user named `nobody`"));
        assert!(s.add_user("eve", Role::Reader, &Expiry::On("1/2/2027".into())).unwrap_err().to_string().contains("not a day"));
        assert!(s.users().unwrap().iter().all(|u| u.name != "eve"), "a refused add adds no one");
    }

    /// Seconds since 1970 as the stores write times, against dates known by heart.
    #[test]
    fn times_are_written_as_the_calendar_has_them() {
        for (secs, text) in [
            (0, "1970-01-01T00:00:00Z"),
            (951_782_400, "2000-02-29T00:00:00Z"),
            (1_798_761_599, "2026-12-31T23:59:59Z"),
            (4_107_542_400, "2100-03-01T00:00:00Z"),
        ] {
            assert_eq!(utc_time(secs), text);
        }
        let store_now: String = Store::open_in_memory().unwrap().now().unwrap();
        assert!(utc_now()[..15] == store_now[..15] || utc_now() >= store_now, "{} vs SQLite {store_now}", utc_now());
    }

    #[test]
    fn roles_include_the_ones_below() {
        assert!(Role::Admin.allows(Role::Annotator));
        assert!(Role::Annotator.allows(Role::Reader));
        assert!(!Role::Reader.allows(Role::Annotator));
        assert!(!Role::Annotator.allows(Role::Admin));
    }
}
