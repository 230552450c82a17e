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

impl Store {
    /// Add a user; its token, to be handed over once (only its hash is kept). A name in use,
    /// even by a removed user, is refused: the log keeps names apart.
    pub fn add_user(&self, name: &str, role: Role) -> Result<String> {
        check_name(name)?;
        if self.conn.query_row("SELECT 1 FROM users WHERE name=?1", [name], |_| Ok(())).optional()?.is_some() {
            return Err(LensError::BadInput(format!("a user named `{name}` exists already (removed users keep their names)")));
        }
        let token = new_token()?;
        self.conn.execute("INSERT INTO users(name, role, token_sha256) VALUES (?1, ?2, ?3)", params![name, role.name(), token_hash(&token)])?;
        Ok(token)
    }

    /// Remove a user: its token stops working; its name stays on what it did.
    pub fn remove_user(&self, name: &str) -> Result<()> {
        let n = self.conn.execute("UPDATE users SET removed_at=strftime('%Y-%m-%dT%H:%M:%SZ','now') WHERE name=?1 AND removed_at IS NULL", [name])?;
        if n == 0 {
            return Err(LensError::NotFound(format!("no user named `{name}` (or removed already)")));
        }
        Ok(())
    }

    pub fn users(&self) -> Result<Vec<User>> {
        let mut st = self.conn.prepare("SELECT name, role, created_at, removed_at FROM users ORDER BY name")?;
        let rows = st.query_map([], |r| {
            Ok(User { name: r.get(0)?, role: r.get::<_, String>(1)?.parse().unwrap_or(Role::Reader), created_at: r.get(2)?, removed_at: r.get(3)? })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The user a token belongs to, removed or not; `None` for a token no one was given.
    pub fn user_by_token(&self, token: &str) -> Result<Option<User>> {
        let row = self
            .conn
            .query_row("SELECT name, role, created_at, removed_at FROM users WHERE token_sha256=?1", [token_hash(token)], |r| {
                Ok(User { name: r.get(0)?, role: r.get::<_, String>(1)?.parse().unwrap_or(Role::Reader), created_at: r.get(2)?, removed_at: r.get(3)? })
            })
            .optional()?;
        Ok(row)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn users_are_added_found_by_token_and_removed() {
        let s = Store::open_in_memory().unwrap();
        let t = s.add_user("ana", Role::Annotator).unwrap();
        assert_eq!(t.len(), 32);
        let u = s.user_by_token(&t).unwrap().unwrap();
        assert_eq!((u.name.as_str(), u.role, u.removed_at.is_none()), ("ana", Role::Annotator, true));
        assert!(s.user_by_token("0".repeat(32).as_str()).unwrap().is_none());
        // the token itself is never stored
        let stored: String = s.conn.query_row("SELECT token_sha256 FROM users", [], |r| r.get(0)).unwrap();
        assert_ne!(stored, t);
        assert!(s.add_user("ana", Role::Reader).unwrap_err().to_string().contains("exists already"));
        assert!(s.add_user("a b", Role::Reader).unwrap_err().to_string().contains("not a user name"));
        s.remove_user("ana").unwrap();
        assert!(s.user_by_token(&t).unwrap().unwrap().removed_at.is_some());
        assert!(s.remove_user("ana").is_err());
        assert!(s.add_user("ana", Role::Reader).is_err(), "a removed user's name stays taken");
        assert_eq!(s.users().unwrap().len(), 1);
    }

    #[test]
    fn roles_include_the_ones_below() {
        assert!(Role::Admin.allows(Role::Annotator));
        assert!(Role::Annotator.allows(Role::Reader));
        assert!(!Role::Reader.allows(Role::Annotator));
        assert!(!Role::Annotator.allows(Role::Admin));
    }
}
