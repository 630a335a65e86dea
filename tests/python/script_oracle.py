"""Runs one script of statements on PostgreSQL 15 and on Quiver, going on
after errors (psql's default, `quiver sql --keep-going`), for the
constraint and transaction tests.

    errors, rows = run_postgres(pg, statements, final_query)
    errors, rows = run_quiver(quiver_bin, statements, final_query)

`errors` lists (sqlstate, message, detail) of the failing statements in
order; `rows` is the answer of `final_query`, run after the script in the
same session (PostgreSQL: in a fresh schema per script, so scripts do not
see each other's tables). The PostgreSQL server comes from pg_oracle.
"""

import json
import re
import subprocess

import pg_oracle


def run_postgres(pg, statements, final_query):
    args = ["-v", "ON_ERROR_STOP=0", "-v", "VERBOSITY=verbose",
            "-c", "DROP SCHEMA IF EXISTS s CASCADE", "-c", "CREATE SCHEMA s",
            "-c", "SET search_path = s", "-c", "\\set VERBOSITY verbose"]
    for stmt in statements:
        args += ["-c", stmt]
    proc = pg.psql("-A", "-t", "-F", "\t", *args, check=False)
    errors = []
    for line in proc.stderr.splitlines():
        m = re.match(r"(?:psql:.*?: )?ERROR:  ([0-9A-Z]{5}): (.*)", line)
        if m:
            errors.append([m.group(1), m.group(2), None])
            continue
        m = re.match(r"DETAIL:  (.*)", line)
        if m and errors:
            errors[-1][2] = m.group(1)
    rows = pg.query(f"SET search_path = s; {final_query}") if final_query else []
    return [tuple(e) for e in errors], rows


def run_quiver(quiver_bin, statements, final_query, timeout=300):
    script = ";\n".join(list(statements) + ([final_query] if final_query else [])) + ";"
    proc = subprocess.run([str(quiver_bin), "sql", "--keep-going", "--format", "json", script],
                          capture_output=True, text=True, timeout=timeout)
    errors = []
    for line in proc.stderr.splitlines():
        line = line.strip()
        if line.startswith("{"):
            e = json.loads(line)
            errors.append((e["sqlstate"], e["error"], e.get("detail")))
    rows = []
    for line in proc.stdout.splitlines():
        line = line.strip()
        if line.startswith("{"):
            rows.append(list(json.loads(line).values()))
    return errors, rows


def assert_same(pg, quiver_bin, statements, final_query, messages=False):
    """Same SQLSTATEs (and with `messages`, same message and DETAIL texts) in
    the same order, and the same final rows. Returns the errors."""
    pg_errors, pg_rows = run_postgres(pg, statements, final_query)
    q_errors, q_rows = run_quiver(quiver_bin, statements, final_query)
    script = "\n".join(statements)
    if messages:
        assert q_errors == pg_errors, f"{script}\nquiver {q_errors}\npostgres {pg_errors}"
    else:
        assert [e[0] for e in q_errors] == [e[0] for e in pg_errors], (
            f"{script}\nquiver {q_errors}\npostgres {pg_errors}")
    if final_query:
        pg_oracle.assert_same_rows(q_rows, pg_rows, script)
    return pg_errors
