//! The team's records (question log, feedback, users, gold sets) and filings in PostgreSQL: lens-core's [`Records`] on
//! a database server a firm already runs and backs up (`pg_dump`), for `lens serve --team
//! --database postgres://…`. The schema is the library's SQLite tables of the same names
//! (`migrations/`, applied by refinery: the pending ones in one transaction, each applied one
//! checked by its checksum; the version also kept in `lens_schema_version`, which builds before
//! refinery read); rows pass through [`LogColumns`], as in SQLite.
//!
//! Requests share a pool of connections ([`DbOptions`]: its size, how long a request waits for
//! one before it is refused as busy); TLS, timeouts and the rule against clear text to another
//! machine are [`connect`]'s. The first connection is made at [`PgRecords::connect_with`] (a
//! wrong URL, or a database that cannot be reached, is a clear error there); a connection the
//! server dropped is found dead when next taken and replaced, so the store recovers by itself
//! when the database is back. Each write is one statement or one transaction: a call that fails
//! midway writes nothing.

pub mod connect;
pub use connect::DbOptions;

use connect::shown;
use lens_core::error::{LensError, Result};
use lens_core::labelstore::{self as ls, AnswerEntry, GradeEntry, LabelBox, LabelOp, LabelStore, SetRow, StoredQuestion};
use lens_core::log::{check_feedback, Feedback, LogColumns, LogEntry, Records, LOG_COLUMNS};
use lens_core::replica::{FilingCopy, Filings, PageCopy, PageVectors};
use lens_core::users::{check_name, new_token, token_hash, Expiry, Role, User};
use postgres::Client;
use r2d2_postgres::PostgresConnectionManager;
use tokio_postgres_rustls::MakeRustlsConnect;

/// Ordered schema migrations, as refinery names them (`V<n>__<what>`); never edit one that has
/// shipped (refinery checks each applied one's checksum), append.
const MIGRATIONS: &[(&str, &str)] = &[
    ("V1__records", include_str!("../migrations/001_records.sql")),
    ("V2__labels", include_str!("../migrations/002_labels.sql")),
    ("V3__filings", include_str!("../migrations/003_filings.sql")),
    ("V4__vectors", include_str!("../migrations/004_vectors.sql")),
    ("V5__team_settings", include_str!("../migrations/005_team_settings.sql")),
    ("V6__user_aliases", include_str!("../migrations/006_user_aliases.sql")),
    ("V7__token_expiry", include_str!("../migrations/007_token_expiry.sql")),
    ("V8__feedback_per_user", include_str!("../migrations/008_feedback_per_user.sql")),
    ("V9__filing_removals", include_str!("../migrations/009_filing_removals.sql")),
];

/// The schema version this build writes.
pub const SCHEMA_VERSION: i32 = MIGRATIONS.len() as i32;

/// The team's records in a PostgreSQL database.
pub struct PgRecords {
    url: String,
    pool: r2d2::Pool<Manager>,
    opts: DbOptions,
}

/// Did `e` come from the connection (lost, refused), not from the database refusing a statement?
/// A server shutting down says so before it closes the connection ("terminating connection due
/// to administrator command", SQLSTATE 57P01): that is the connection lost too, as is any error
/// of the connection-exception (08) and operator-intervention (57P) classes.
fn connection_lost(e: &postgres::Error) -> bool {
    e.is_closed() || e.as_db_error().is_none_or(|d| ["08", "57P"].iter().any(|c| d.code().code().starts_with(c)))
}

fn db_err(url: &str, e: postgres::Error) -> LensError {
    // the driver's words and their causes ("error performing TLS handshake: invalid peer
    // certificate: NotValidForName")
    let why = e.as_db_error().map(|d| d.message().to_string()).unwrap_or_else(|| {
        let mut why = e.to_string();
        let mut cause = std::error::Error::source(&e);
        while let Some(c) = cause {
            let c_text = c.to_string();
            if !why.contains(&c_text) {
                why = format!("{why}: {c_text}");
            }
            cause = c.source();
        }
        why
    });
    if connection_lost(&e) {
        LensError::Database(format!("PostgreSQL at {} cannot be reached ({why}); nothing was written; try again when it is back", shown(url)))
    } else {
        LensError::Database(format!("PostgreSQL at {}: {why}", shown(url)))
    }
}

/// The key of the session lock held while a server migrates (one server at a time).
const MIGRATION_LOCK: i64 = 0x10c_1e45;

/// Bring the schema up to this build's version with refinery (every pending migration and its
/// history row in one transaction: all applied, or none); refuse a database of a newer one.
/// One server migrates at a time (a session lock of the database, held until done).
fn migrate(url: &str, c: &mut Client) -> Result<()> {
    c.batch_execute(&format!("SELECT pg_advisory_lock({MIGRATION_LOCK})")).map_err(|e| db_err(url, e))?;
    let done = migrate_locked(url, c);
    let unlocked = c.batch_execute(&format!("SELECT pg_advisory_unlock({MIGRATION_LOCK})")).map_err(|e| db_err(url, e));
    done.and(unlocked)
}

fn migrate_locked(url: &str, c: &mut Client) -> Result<()> {
    let err = |e| db_err(url, e);
    let refused = |e: refinery::Error| LensError::Database(format!("PostgreSQL at {}: the schema's migrations: {e}", shown(url)));
    // builds before refinery kept only this version, and read it to refuse a newer schema: it is
    // read first, and kept up to date after
    c.batch_execute("CREATE TABLE IF NOT EXISTS lens_schema_version (version INTEGER NOT NULL)").map_err(err)?;
    let found: i32 = c.query_opt("SELECT version FROM lens_schema_version", &[]).map_err(err)?.map_or(0, |r| r.get(0));
    if found > SCHEMA_VERSION {
        return Err(newer(url, found));
    }
    let migrations =
        MIGRATIONS.iter().map(|(name, sql)| refinery::Migration::unapplied(name, sql)).collect::<std::result::Result<Vec<_>, _>>().map_err(refused)?;
    let runner = refinery::Runner::new(&migrations).set_grouped(true).set_abort_divergent(true).set_abort_missing(true);
    let history: bool = c.query_one("SELECT to_regclass('refinery_schema_history') IS NOT NULL", &[]).map_err(err)?.get(0);
    let applied = if history { runner.get_applied_migrations(c).map_err(refused)? } else { Vec::new() };
    if let Some(last) = applied.iter().map(|m| m.version()).max().filter(|v| *v > SCHEMA_VERSION) {
        return Err(newer(url, last));
    }
    if applied.is_empty() && found > 0 {
        // migrated by a build before refinery: its first `found` migrations are recorded as
        // applied, not run again
        refinery::Runner::new(&migrations).set_target(refinery::Target::FakeVersion(found)).run(c).map_err(refused)?;
    }
    runner.run(c).map_err(refused)?;
    let mut tx = c.transaction().map_err(err)?;
    tx.execute("DELETE FROM lens_schema_version", &[]).map_err(err)?;
    tx.execute("INSERT INTO lens_schema_version(version) VALUES ($1)", &[&SCHEMA_VERSION]).map_err(err)?;
    tx.commit().map_err(err)
}

fn newer(url: &str, version: i32) -> LensError {
    LensError::Database(format!(
        "PostgreSQL at {} holds records of a newer 10-K Lens (schema version {version}; this build knows up to {SCHEMA_VERSION}): update the app",
        shown(url)
    ))
}

fn user_of(r: &postgres::Row) -> User {
    User { name: r.get(0), role: r.get::<_, String>(1).parse().unwrap_or(Role::Reader), created_at: r.get(2), removed_at: r.get(3), token_expires_at: r.get(4) }
}

fn columns_of(r: &postgres::Row) -> LogColumns {
    LogColumns {
        id: r.get(0),
        time: r.get(1),
        question: r.get(2),
        scope: r.get(3),
        pages: r.get(4),
        answer: r.get(5),
        citations: r.get(6),
        quote: r.get(7),
        not_found: r.get(8),
        found_by: r.get(9),
        retrieve_ms: r.get(10),
        answer_ms: r.get(11),
        answerer: r.get(12),
        retriever: r.get(13),
        feedback: r.get(14),
        feedback_note: r.get(15),
        calculation: r.get(16),
        model: r.get(17),
        cancelled: r.get(18),
        shown: r.get(19),
        asked_by: r.get(20),
        feedback_by: r.get(21),
    }
}

/// A connection of the pool and the statements prepared on it.
struct Conn {
    client: Client,
    prepared: std::collections::HashMap<String, postgres::Statement>,
}

/// r2d2_postgres's manager, its connections kept with their prepared statements.
struct Manager(PostgresConnectionManager<MakeRustlsConnect>);

impl r2d2::ManageConnection for Manager {
    type Connection = Conn;
    type Error = postgres::Error;

    fn connect(&self) -> std::result::Result<Conn, postgres::Error> {
        self.0.connect().map(|client| Conn { client, prepared: Default::default() })
    }

    fn is_valid(&self, c: &mut Conn) -> std::result::Result<(), postgres::Error> {
        self.0.is_valid(&mut c.client)
    }

    fn has_broken(&self, c: &mut Conn) -> bool {
        self.0.has_broken(&mut c.client)
    }
}

impl PgRecords {
    /// Connect to `url` with the default [`DbOptions`] and bring its schema up to date.
    pub fn connect(url: &str) -> Result<PgRecords> {
        PgRecords::connect_with(url, &DbOptions::default())
    }

    /// Connect to `url` (see [`connect`] for what it may say) with a pool sized by `opts`, and
    /// bring its schema up to date.
    pub fn connect_with(url: &str, opts: &DbOptions) -> Result<PgRecords> {
        if opts.pool_size == 0 {
            return Err(LensError::BadInput("the database pool needs at least one connection".into()));
        }
        let t = connect::target(url, opts)?;
        let tls = connect::connector(&t)?;
        // the first connection now, outside the pool: a wrong password or an unreachable server
        // is said at once; the schema is brought up on it
        let mut first = t.config.connect(tls.clone()).map_err(|e| db_err(url, e))?;
        migrate(url, &mut first)?;
        drop(first);
        let manager = Manager(PostgresConnectionManager::new(t.config, tls));
        let pool = r2d2::Pool::builder()
            .max_size(opts.pool_size)
            .min_idle(Some(1))
            .connection_timeout(opts.wait)
            // a connection the server dropped (a restart) is found dead here, not by a request
            .test_on_check_out(true)
            .error_handler(Box::new(r2d2::NopErrorHandler))
            .build_unchecked(manager);
        Ok(PgRecords { url: url.to_string(), pool, opts: opts.clone() })
    }

    /// Why no connection came: every one busy, or the database not reached.
    fn pool_err(&self, e: r2d2::Error) -> LensError {
        let st = self.pool.state();
        if st.connections >= self.opts.pool_size && st.idle_connections == 0 {
            LensError::Busy(format!(
                "all {} connections to the team database at {} are in use (waited {:.1} s); try again in a moment",
                self.opts.pool_size,
                shown(&self.url),
                self.opts.wait.as_secs_f64()
            ))
        } else {
            let why = e.to_string();
            let why = why.strip_prefix("timed out waiting for connection: ").unwrap_or(&why).to_string();
            LensError::Database(format!("PostgreSQL at {} cannot be reached ({why}); nothing was written; try again when it is back", shown(&self.url)))
        }
    }

    /// Run `f` on a connection of the pool. A connection lost meanwhile is dropped by the pool
    /// (it checks each one it hands out), so the next call gets a new one.
    fn with<T>(&self, f: impl FnOnce(&mut Client) -> std::result::Result<T, postgres::Error>) -> Result<T> {
        let mut c = self.pool.get().map_err(|e| self.pool_err(e))?;
        f(&mut c.client).map_err(|e| db_err(&self.url, e))
    }

    /// Run `f` with `sql` prepared on a connection of the pool: prepared once per connection
    /// and kept with it, so the calls every request makes (the token check, the log's row, a
    /// gold question read to grade) are parsed and planned once, and cost one round trip each.
    fn with_prepared<T>(&self, sql: &str, f: impl FnOnce(&mut Client, &postgres::Statement) -> std::result::Result<T, postgres::Error>) -> Result<T> {
        self.with_all_prepared(&[sql], |c, st| f(c, &st[0]))
    }

    /// [`PgRecords::with_prepared`] for several statements, prepared before `f` starts a
    /// transaction of them.
    fn with_all_prepared<T>(&self, sqls: &[&str], f: impl FnOnce(&mut Client, &[postgres::Statement]) -> std::result::Result<T, postgres::Error>) -> Result<T> {
        let mut c = self.pool.get().map_err(|e| self.pool_err(e))?;
        let c = &mut *c;
        let mut sts = Vec::with_capacity(sqls.len());
        for sql in sqls {
            let st = match c.prepared.get(*sql) {
                Some(st) => st.clone(),
                None => {
                    let st = c.client.prepare(sql).map_err(|e| db_err(&self.url, e))?;
                    c.prepared.insert(sql.to_string(), st.clone());
                    st
                }
            };
            sts.push(st);
        }
        f(&mut c.client, &sts).map_err(|e| db_err(&self.url, e))
    }

    /// Whether the database keeps dense vectors (its server has pgvector: migration 4 made the
    /// table).
    pub fn keeps_vectors(&self) -> Result<bool> {
        self.with(|c| c.query_one("SELECT to_regclass('filing_vectors') IS NOT NULL", &[])).map(|r| r.get(0))
    }

    fn log_rows(&self, tail: &str, arg: i64) -> Result<Vec<LogEntry>> {
        let sql = format!("SELECT {LOG_COLUMNS} FROM question_log {tail}");
        let rows = self.with(|c| c.query(&sql, &[&arg]))?;
        let mut out: Vec<LogEntry> = rows.iter().map(|r| columns_of(r).entry()).collect();
        if let (Some(lo), Some(hi)) = (out.iter().map(|e| e.id).min(), out.iter().map(|e| e.id).max()) {
            let fb = self.with(|c| c.query(&lens_core::log::FEEDBACK_ROWS.replace("?1", "$1").replace("?2", "$2"), &[&lo, &hi]))?;
            let fb = fb.iter().map(|r| (r.get(0), Feedback { user: r.get(1), value: r.get(2), note: r.get(3), at: r.get(4) })).collect();
            lens_core::log::attach_feedback(&mut out, fb);
        }
        Ok(out)
    }
}

/// One of the label store's SQL statements in PostgreSQL's dialect: `$n` placeholders, the
/// optional question id typed.
fn pg_sql(sqlite: &str) -> String {
    sqlite.replace("?2 IS NULL", "$2::text IS NULL").replace("?1", "$1").replace("?2", "$2")
}

/// The id of set `name`, if there is one.
/// A gold set's key by its name.
const SET_KEY: &str = "SELECT id FROM label_sets WHERE name=$1";

fn set_key(c: &mut impl postgres::GenericClient, name: &str) -> std::result::Result<Option<i64>, postgres::Error> {
    Ok(c.query_opt(SET_KEY, &[&name])?.map(|r| r.get(0)))
}

impl LabelStore for PgRecords {
    fn label_sets(&self) -> Result<Vec<SetRow>> {
        let rows = self.with(|c| c.query("SELECT name, created_at FROM label_sets ORDER BY name", &[]))?;
        Ok(rows.iter().map(|r| SetRow { name: r.get(0), created_at: r.get(1) }).collect())
    }

    fn label_questions(&self, set: &str, qid: Option<&str>) -> Result<Option<Vec<StoredQuestion>>> {
        let sqls = [SET_KEY.to_string(), pg_sql(ls::sql::QUESTIONS), pg_sql(ls::sql::GRADES), pg_sql(ls::sql::ANSWERS), pg_sql(ls::sql::BOXES)];
        self.with_all_prepared(&sqls.each_ref().map(String::as_str), |c, st| {
            // one snapshot: the four reads see the same moment
            let mut tx = c.build_transaction().isolation_level(postgres::IsolationLevel::RepeatableRead).read_only(true).start()?;
            let Some(sid) = tx.query_opt(&st[0], &[&set])?.map(|r| r.get::<_, i64>(0)) else { return Ok(None) };
            let questions = tx
                .query(&st[1], &[&sid, &qid])?
                .iter()
                .map(|r| (r.get::<_, i64>(0), r.get::<_, String>(1), r.get::<_, String>(2), r.get::<_, Option<String>>(3)))
                .collect();
            let grades = tx
                .query(&st[2], &[&sid, &qid])?
                .iter()
                .filter_map(|r| {
                    let g: Option<i16> = r.get(3);
                    g.map(|g| (r.get::<_, i64>(0), GradeEntry { page: r.get(1), annotator: r.get(2), grade: g as u8, at: r.get(4) }))
                })
                .collect();
            let answers = tx
                .query(&st[3], &[&sid, &qid])?
                .iter()
                .map(|r| (r.get::<_, i64>(0), AnswerEntry { annotator: r.get(1), answer: r.get(2), answerable: r.get(3), at: r.get(4) }))
                .collect();
            let boxes = tx
                .query(&st[4], &[&sid, &qid])?
                .iter()
                .map(|r| {
                    (r.get::<_, i64>(0), LabelBox { id: r.get(1), page: r.get(2), annotator: r.get(3), l: r.get(4), b: r.get(5), r: r.get(6), t: r.get(7) })
                })
                .collect();
            tx.commit()?;
            Ok(Some(ls::assemble(questions, grades, answers, boxes)))
        })
    }

    fn apply_label_ops(&self, set: &str, create: bool, ops: &[LabelOp]) -> Result<Vec<i64>> {
        // the database's errors end the transaction (rolled back); the store's own (a question
        // or box not there) roll it back too, and say which
        self.with(|c| {
            let mut tx = c.transaction()?;
            if create {
                tx.execute("INSERT INTO label_sets(name) VALUES($1) ON CONFLICT (name) DO NOTHING", &[&set])?;
            }
            let Some(sid) = set_key(&mut tx, set)? else { return Ok(Err(ls::no_set(set))) };
            let mut ids = Vec::new();
            // question id -> row, looked up once per import
            let mut keys: std::collections::HashMap<String, i64> = std::collections::HashMap::new();
            for op in ops {
                let qid = op.qid().to_string();
                match op {
                    LabelOp::AddQuestion { fields, origin, .. } => {
                        let r = tx.query_opt(
                            "INSERT INTO label_questions(set_id, qid, fields, origin) VALUES($1, $2, $3, $4) ON CONFLICT (set_id, qid) DO NOTHING RETURNING id",
                            &[&sid, &qid, fields, origin],
                        )?;
                        let Some(r) = r else { return Ok(Err(ls::question_taken(set, &qid))) };
                        keys.insert(qid, r.get(0));
                        continue;
                    }
                    LabelOp::PutQuestion { fields, origin, .. } => {
                        let r = tx.query_one(
                            "INSERT INTO label_questions(set_id, qid, fields, origin) VALUES($1, $2, $3, $4) \
                             ON CONFLICT (set_id, qid) DO UPDATE SET fields=EXCLUDED.fields, origin=COALESCE(EXCLUDED.origin, label_questions.origin) RETURNING id",
                            &[&sid, &qid, fields, origin],
                        )?;
                        keys.insert(qid, r.get(0));
                        continue;
                    }
                    _ => {}
                }
                let k = match keys.get(&qid) {
                    Some(k) => *k,
                    None => match tx.query_opt("SELECT id FROM label_questions WHERE set_id=$1 AND qid=$2", &[&sid, &qid])? {
                        Some(r) => *keys.entry(qid.clone()).or_insert(r.get(0)),
                        None => return Ok(Err(ls::no_question(set, &qid))),
                    },
                };
                match op {
                    LabelOp::AddQuestion { .. } | LabelOp::PutQuestion { .. } => {}
                    LabelOp::SetFields { fields, .. } => {
                        tx.execute("UPDATE label_questions SET fields=$2 WHERE id=$1", &[&k, fields])?;
                    }
                    LabelOp::Grade { page, annotator, grade, .. } => {
                        let g: Option<i16> = grade.map(i16::from);
                        tx.execute("INSERT INTO label_grades(question, page, annotator, grade) VALUES($1, $2, $3, $4)", &[&k, page, annotator, &g])?;
                    }
                    LabelOp::Answer { annotator, answer, answerable, .. } => {
                        tx.execute("INSERT INTO label_answers(question, annotator, answer, answerable) VALUES($1, $2, $3, $4)", &[&k, annotator, answer, answerable])?;
                    }
                    LabelOp::AddBox { b, .. } => {
                        let r = tx.query_one(
                            "INSERT INTO label_boxes(question, page, annotator, l, b, r, t) VALUES($1, $2, $3, $4, $5, $6, $7) RETURNING id",
                            &[&k, &b.page, &b.annotator, &b.l, &b.b, &b.r, &b.t],
                        )?;
                        ids.push(r.get::<_, i64>(0));
                    }
                    LabelOp::RemoveBox { id, by, .. } => {
                        let owner: Option<String> =
                            tx.query_opt("SELECT annotator FROM label_boxes WHERE id=$1 AND question=$2 AND NOT removed", &[id, &k])?.map(|r| r.get(0));
                        match owner {
                            None => return Ok(Err(ls::no_box(&qid, *id))),
                            Some(o) if by.as_ref().is_some_and(|b| *b != o) => return Ok(Err(ls::not_yours(*id, &o))),
                            Some(_) => {
                                tx.execute("UPDATE label_boxes SET removed=true WHERE id=$1", &[id])?;
                            }
                        }
                    }
                    LabelOp::ClearBoxes { by: Some(b), .. } => {
                        tx.execute("UPDATE label_boxes SET removed=true WHERE question=$1 AND annotator=$2", &[&k, b])?;
                    }
                    LabelOp::ClearBoxes { by: None, .. } => {
                        tx.execute("UPDATE label_boxes SET removed=true WHERE question=$1", &[&k])?;
                    }
                }
            }
            tx.commit()?;
            Ok(Ok(ids))
        })?
    }

    fn remove_label_set(&self, set: &str) -> Result<()> {
        let n = self.with(|c| c.execute("DELETE FROM label_sets WHERE name=$1", &[&set]))?;
        if n == 0 {
            return Err(ls::no_set(set));
        }
        Ok(())
    }
}

impl Filings for PgRecords {
    fn put_filing(&self, f: &FilingCopy, by: Option<&str>) -> Result<bool> {
        let aliases = serde_json::to_string(&f.aliases).unwrap_or_else(|_| "[]".into());
        let user_aliases = serde_json::to_string(&f.user_aliases).unwrap_or_else(|_| "[]".into());
        self.with(|c| {
            let mut tx = c.transaction()?;
            // one filing per content: a second put of the same file (another user, another
            // server) changes nothing
            let n = tx.execute(
                "INSERT INTO filings(id, sha256, path, title, company, year, form, aliases, pdf, added_by, user_aliases) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11) \
                 ON CONFLICT (sha256) DO NOTHING",
                &[&f.id, &f.sha256, &f.path, &f.title, &f.company, &f.year, &f.form, &aliases, &f.pdf, &by, &user_aliases],
            )?;
            if n == 0 {
                return Ok(false);
            }
            // put again on purpose: no longer a removed filing
            tx.execute("DELETE FROM filing_removals WHERE sha256=$1", &[&f.sha256])?;
            let st = tx.prepare(
                "INSERT INTO filing_pages(filing, page, text, heading, width, height, needs_ocr, source, label, boxes) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10)",
            )?;
            for p in &f.pages {
                let page = p.page as i32;
                tx.execute(&st, &[&f.id, &page, &p.text, &p.heading, &p.width, &p.height, &p.needs_ocr, &p.source, &p.label, &p.boxes])?;
            }
            tx.commit()?;
            Ok(true)
        })
    }

    fn filing_ids(&self) -> Result<Vec<(String, String)>> {
        Ok(self.with(|c| c.query("SELECT id, sha256 FROM filings ORDER BY id", &[]))?.iter().map(|r| (r.get(0), r.get(1))).collect())
    }

    fn filing(&self, id: &str) -> Result<FilingCopy> {
        let (head, pages) = self.with(|c| {
            let mut tx = c.build_transaction().isolation_level(postgres::IsolationLevel::RepeatableRead).read_only(true).start()?;
            let head = tx.query_opt("SELECT id, sha256, path, title, company, year, form, aliases, pdf, user_aliases FROM filings WHERE id=$1", &[&id])?;
            let pages =
                tx.query("SELECT page, text, heading, width, height, needs_ocr, source, label, boxes FROM filing_pages WHERE filing=$1 ORDER BY page", &[&id])?;
            tx.commit()?;
            Ok((head, pages))
        })?;
        let h = head.ok_or_else(|| LensError::NotFound(format!("no filing `{id}` in {}", self.place())))?;
        let aliases: String = h.get(7);
        let user_aliases: String = h.get(9);
        Ok(FilingCopy {
            id: h.get(0),
            sha256: h.get(1),
            path: h.get(2),
            title: h.get(3),
            company: h.get(4),
            year: h.get(5),
            form: h.get(6),
            aliases: serde_json::from_str(&aliases).unwrap_or_default(),
            user_aliases: serde_json::from_str(&user_aliases).unwrap_or_default(),
            pdf: h.get(8),
            pages: pages
                .iter()
                .map(|r| PageCopy {
                    page: r.get::<_, i32>(0) as u32,
                    text: r.get(1),
                    heading: r.get(2),
                    width: r.get(3),
                    height: r.get(4),
                    needs_ocr: r.get(5),
                    source: r.get(6),
                    label: r.get(7),
                    boxes: r.get(8),
                })
                .collect(),
        })
    }

    fn put_vectors(&self, id: &str, model: &str, pages: &PageVectors) -> Result<bool> {
        if !self.keeps_vectors()? {
            return Ok(false);
        }
        self.with(|c| {
            let mut tx = c.transaction()?;
            tx.execute("DELETE FROM filing_vectors WHERE filing=$1 AND model=$2", &[&id, &model])?;
            // the vectors in pgvector's binary form (the pgvector crate), not as text
            let st = tx.prepare("INSERT INTO filing_vectors(filing, model, page, win, embedding) VALUES ($1, $2, $3, $4, $5)")?;
            for (page, windows) in pages {
                for (w, v) in windows.iter().enumerate() {
                    tx.execute(&st, &[&id, &model, &(*page as i32), &(w as i32), &pgvector::Vector::from(v.clone())])?;
                }
            }
            tx.commit()?;
            Ok(true)
        })
    }

    fn vectors(&self, id: &str, model: &str) -> Result<Option<PageVectors>> {
        if !self.keeps_vectors()? {
            return Ok(None);
        }
        let rows = self.with(|c| c.query("SELECT page, embedding FROM filing_vectors WHERE filing=$1 AND model=$2 ORDER BY page, win", &[&id, &model]))?;
        if rows.is_empty() {
            return Ok(None);
        }
        let mut out: PageVectors = Vec::new();
        for r in &rows {
            let page = r.get::<_, i32>(0) as u32;
            let v: Vec<f32> = r
                .try_get::<_, pgvector::Vector>(1)
                .map_err(|e| LensError::Database(format!("a vector of `{id}` in {} is unreadable: {e}", self.place())))?
                .to_vec();
            match out.last_mut() {
                Some((p, w)) if *p == page => w.push(v),
                _ => out.push((page, vec![v])),
            }
        }
        Ok(Some(out))
    }

    fn set_user_aliases(&self, id: &str, aliases: &[String]) -> Result<()> {
        let json = serde_json::to_string(aliases).unwrap_or_else(|_| "[]".into());
        let n = self.with(|c| c.execute("UPDATE filings SET user_aliases=$2 WHERE id=$1", &[&id, &json]))?;
        if n == 0 {
            return Err(LensError::NotFound(format!("no filing `{id}` in {}", self.place())));
        }
        Ok(())
    }

    fn vector_ids(&self, model: &str) -> Result<std::collections::HashSet<String>> {
        if !self.keeps_vectors()? {
            return Ok(Default::default());
        }
        Ok(self.with(|c| c.query("SELECT DISTINCT filing FROM filing_vectors WHERE model=$1", &[&model]))?.iter().map(|r| r.get(0)).collect())
    }

    fn team_settings(&self) -> Result<Option<String>> {
        Ok(self.with(|c| c.query_opt("SELECT value FROM team_settings WHERE id = 1", &[]))?.map(|r| r.get(0)))
    }

    fn put_team_settings(&self, json: &str) -> Result<()> {
        self.with(|c| c.execute("INSERT INTO team_settings(id, value) VALUES (1, $1) ON CONFLICT (id) DO UPDATE SET value = EXCLUDED.value", &[&json]))?;
        Ok(())
    }

    fn remove_filing(&self, id: &str) -> Result<()> {
        // removed and remembered in one transaction: no server's sync brings it back
        let n = self.with(|c| {
            let mut tx = c.transaction()?;
            let sha: Option<String> = tx.query_opt("DELETE FROM filings WHERE id=$1 RETURNING sha256", &[&id])?.map(|r| r.get(0));
            if let Some(sha) = &sha {
                tx.execute(
                    "INSERT INTO filing_removals(sha256, id) VALUES ($1, $2) ON CONFLICT (sha256) DO UPDATE SET id=excluded.id, removed_at=excluded.removed_at",
                    &[sha, &id],
                )?;
            }
            tx.commit()?;
            Ok(sha.is_some())
        })?;
        if !n {
            return Err(LensError::NotFound(format!("no filing `{id}` in {}", self.place())));
        }
        Ok(())
    }

    fn removed_filings(&self) -> Result<std::collections::HashSet<String>> {
        Ok(self.with(|c| c.query("SELECT sha256 FROM filing_removals", &[]))?.iter().map(|r| r.get(0)).collect())
    }
}

impl Records for PgRecords {
    fn log_question(&self, e: &LogEntry) -> Result<i64> {
        let c = LogColumns::of(e);
        const INSERT: &str = "INSERT INTO question_log(question,scope,pages,answer,citations,quote,not_found,found_by,retrieve_ms,answer_ms,answerer,retriever,calculation,model,cancelled,shown,asked_by) VALUES($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17) RETURNING id";
        self.with_prepared(INSERT, |db, st| {
            db.query_one(
                st,
                &[
                    &c.question,
                    &c.scope,
                    &c.pages,
                    &c.answer,
                    &c.citations,
                    &c.quote,
                    &c.not_found,
                    &c.found_by,
                    &c.retrieve_ms,
                    &c.answer_ms,
                    &c.answerer,
                    &c.retriever,
                    &c.calculation,
                    &c.model,
                    &c.cancelled,
                    &c.shown,
                    &c.asked_by,
                ],
            )
        })
        .map(|r| r.get(0))
    }

    fn question_log(&self, limit: usize) -> Result<Vec<LogEntry>> {
        self.log_rows("ORDER BY id DESC LIMIT $1", limit.min(i64::MAX as usize) as i64)
    }

    fn log_entry(&self, id: i64) -> Result<LogEntry> {
        self.log_rows("WHERE id=$1", id)?.pop().ok_or_else(|| LensError::NotFound(format!("no logged question with id {id}")))
    }

    fn set_feedback(&self, id: i64, value: i32, note: Option<&str>, by: Option<&str>) -> Result<()> {
        check_feedback(value)?;
        let n = self.with(|c| {
            let mut tx = c.transaction()?;
            let n = tx.execute("UPDATE question_log SET feedback=$2, feedback_note=$3, feedback_by=$4 WHERE id=$1", &[&id, &value, &note, &by])?;
            if n > 0 {
                tx.execute(
                    "INSERT INTO feedback(log_id, user_name, value, note) VALUES ($1, $2, $3, $4) \
                     ON CONFLICT (log_id, user_name) DO UPDATE SET value=excluded.value, note=excluded.note, \
                     at=to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')",
                    &[&id, &by.unwrap_or(""), &value, &note],
                )?;
            }
            tx.commit()?;
            Ok(n)
        })?;
        if n == 0 {
            return Err(LensError::NotFound(format!("no logged question with id {id}")));
        }
        Ok(())
    }

    fn add_user(&self, name: &str, role: Role, expiry: &Expiry) -> Result<String> {
        check_name(name)?;
        let ends = expiry.at()?;
        let token = new_token()?;
        let n = self.with(|c| {
            c.execute(
                "INSERT INTO users(name, role, token_sha256, token_expires_at) VALUES ($1, $2, $3, $4) ON CONFLICT (name) DO NOTHING",
                &[&name, &role.name(), &token_hash(&token), &ends],
            )
        })?;
        if n == 0 {
            return Err(LensError::BadInput(format!("a user named `{name}` exists already (removed users keep their names)")));
        }
        Ok(token)
    }

    fn new_user_token(&self, name: &str, expiry: &Expiry) -> Result<String> {
        let ends = expiry.at()?;
        let token = new_token()?;
        let n = self.with(|c| {
            c.execute("UPDATE users SET token_sha256=$2, token_expires_at=$3 WHERE name=$1 AND removed_at IS NULL", &[&name, &token_hash(&token), &ends])
        })?;
        if n == 0 {
            return Err(LensError::NotFound(format!("no user named `{name}` (or removed: add a new one)")));
        }
        Ok(token)
    }

    fn remove_user(&self, name: &str) -> Result<()> {
        let n = self.with(|c| {
            c.execute(
                "UPDATE users SET removed_at=to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') WHERE name=$1 AND removed_at IS NULL",
                &[&name],
            )
        })?;
        if n == 0 {
            return Err(LensError::NotFound(format!("no user named `{name}` (or removed already)")));
        }
        Ok(())
    }

    fn users(&self) -> Result<Vec<User>> {
        Ok(self.with(|c| c.query("SELECT name, role, created_at, removed_at, token_expires_at FROM users ORDER BY name", &[]))?.iter().map(user_of).collect())
    }

    fn user_by_token(&self, token: &str) -> Result<Option<User>> {
        Ok(self
            .with_prepared("SELECT name, role, created_at, removed_at, token_expires_at FROM users WHERE token_sha256=$1", |c, st| {
                c.query_opt(st, &[&token_hash(token)])
            })?
            .as_ref()
            .map(user_of))
    }

    fn place(&self) -> String {
        format!("PostgreSQL at {}", shown(&self.url))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_is_shown_without_its_password_and_a_wrong_one_is_refused() {
        assert_eq!(shown("postgres://lens:secret@db.example:5432/lens?sslmode=require"), "db.example:5432/lens");
        let e = PgRecords::connect("mysql://x@y/z").err().unwrap();
        assert!(e.to_string().contains("is not a PostgreSQL URL"), "{e}");
        // nothing listens on port 1: a clear message, no password in it
        let e = PgRecords::connect("postgres://lens:secret@127.0.0.1:1/lens").err().unwrap();
        assert_eq!(e.code(), "database");
        assert!(e.to_string().contains("cannot be reached") && !e.to_string().contains("secret"), "{e}");
    }
}
