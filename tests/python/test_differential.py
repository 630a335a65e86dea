"""Differential test: every plan the optimizer may or may not make, and every
thread count, gives the same answer.

Each SSB and TPC-H query (bench/queries) and each query of the join suite
(test_sql_joins.QUERIES) runs with the default plan and thread count (the
baseline), then once with each optimizer rule disabled in turn
(`quiver sql --disable-optimizer-rule NAME`; the rule names come from the
binary itself, so a new rule is covered as soon as it exists) and with 1, 2
and 7 threads. Every run must give the baseline's answer: identical column
names and types, identical values (floats within 1e-9 relative: summation
order depends on the plan and the threads), in the same order where the
outermost ORDER BY defines it (result_compare.py).

The data are small (SF 0.05) but cut into many record batches (7,000 rows,
not a multiple of the 2,048-row vector) so that morsels, chunk boundaries and
threads all come into play. The baseline itself is checked against DuckDB in
test_sql.py (SF 1) and test_sql_joins.py.

One exception, checked rather than assumed: without filter_pushdown a query
written with comma joins (FROM a, b WHERE a.k = b.k) is planned as a cross
product under a filter, and without join_order the FROM list is joined in
the order written, so SSB's `FROM date, customer, ...` starts with a cross
product of two dimensions; at any useful scale neither finishes. A
(query, rule) pair is left out exactly when the plan without the rule has a
CROSS_PRODUCT estimated above CROSS_PRODUCT_LIMIT rows and the default plan
has none (EXPLAIN's estimates); test_exclusions_are_cross_products checks
that only those two rules leave anything out, never a join-suite query, and
that most queries still run without them.
"""

import functools
import io
import re
import subprocess

import pyarrow.ipc as ipc
import pytest

from result_compare import assert_same_result
from test_sql import QUERIES, SSB_TABLES, TPCH_TABLES, views
import test_sql_joins

SF = 0.05
BATCH_ROWS = 7000
THREADS = [1, 2, 7]
CROSS_PRODUCT_LIMIT = 1_000_000


def rule_names(quiver_bin):
    proc = subprocess.run([str(quiver_bin), "sql", "--disable-optimizer-rule", "?", "SELECT 1"],
                          capture_output=True, text=True, timeout=60)
    m = re.search(r"\(rules: ([a-z_, ]+)\)", proc.stderr)
    assert proc.returncode == 1 and m, proc.stderr
    names = m.group(1).split(", ")
    assert len(names) >= 8, names
    return names


def run(quiver_bin, prelude, sql, *flags, timeout=120):
    proc = subprocess.run([str(quiver_bin), "sql", "--format", "arrow", *flags, prelude + sql],
                          capture_output=True, timeout=timeout)
    assert proc.returncode == 0, f"quiver sql {' '.join(flags)}: {proc.stderr.decode()}"
    return ipc.open_stream(io.BytesIO(proc.stdout)).read_all()


@functools.lru_cache(maxsize=None)  # the plans are asked for by several tests
def explain(quiver_bin, prelude, sql, *flags):
    proc = subprocess.run([str(quiver_bin), "sql", *flags, prelude + "EXPLAIN " + sql],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def largest_cross_product(plan):
    sizes = [int(m) for m in re.findall(r"CROSS_PRODUCT[^\n]*\(~(\d+) rows\)", plan)]
    return max(sizes, default=None)


@pytest.fixture(scope="module")
def datasets(quiver_bin, tmp_path_factory):
    out = {}
    for bench, tables in [("ssb", SSB_TABLES), ("tpch", TPCH_TABLES)]:
        d = tmp_path_factory.mktemp(f"diff_{bench}")
        subprocess.run([str(quiver_bin), "gen", bench, "--sf", str(SF), "--batch-rows", str(BATCH_ROWS),
                        "--out", str(d), "--quiet"], check=True, capture_output=True, timeout=300)
        out[bench] = views(d, tables)
    out["joins"], _ = test_sql_joins.write_tables(tmp_path_factory.mktemp("diff_joins"))
    return out


@pytest.fixture(scope="module")
def rules(quiver_bin):
    return rule_names(quiver_bin)


def cases():
    out = []
    for bench in ["ssb", "tpch"]:
        for q in sorted((QUERIES / bench).glob("*.sql")):
            out.append(pytest.param(bench, q.read_text(), id=f"{bench}-{q.stem}"))
    for name in sorted(test_sql_joins.QUERIES):
        out.append(pytest.param("joins", test_sql_joins.QUERIES[name][0], id=f"joins-{name}"))
    return out


def needs_rule(quiver_bin, prelude, sql, rule):
    """True when the plan without `rule` has a cross product too big to run."""
    largest = largest_cross_product(explain(quiver_bin, prelude, sql, "--disable-optimizer-rule", rule))
    return largest is not None and largest > CROSS_PRODUCT_LIMIT


@pytest.mark.parametrize("bench,sql", cases())
def test_same_answer_under_every_rule_set_and_thread_count(bench, sql, datasets, rules, quiver_bin):
    prelude = datasets[bench]
    baseline = run(quiver_bin, prelude, sql)
    variants = [(f"--disable-optimizer-rule {r}", ["--disable-optimizer-rule", r]) for r in rules]
    variants += [(f"--threads {n}", ["--threads", str(n)]) for n in THREADS]
    for label, flags in variants:
        if flags[0] == "--disable-optimizer-rule" and needs_rule(quiver_bin, prelude, sql, flags[1]):
            continue  # see the module doc; checked in test_exclusions_are_cross_products
        got = run(quiver_bin, prelude, sql, *flags)
        assert_same_result(got, baseline, sql, label, same_engine=True)


def test_exclusions_are_cross_products(datasets, rules, quiver_bin):
    left_out = {}
    for p in cases():
        bench, sql = p.values
        default_plan = None
        for r in rules:
            if needs_rule(quiver_bin, datasets[bench], sql, r):
                # The rule is what removes the cross product: the default plan has none.
                default_plan = default_plan or explain(quiver_bin, datasets[bench], sql)
                assert largest_cross_product(default_plan) is None, (p.id, default_plan)
                left_out.setdefault(r, []).append(p.id)
    print("left out for their cross products:", left_out)
    assert set(left_out) <= {"filter_pushdown", "join_order"}, left_out
    # The join suite (explicit JOIN ... ON, EXISTS, IN) runs under every rule
    # set, and so do the one-table and explicit-join TPC-H queries.
    total = len(cases())
    for r, ids in left_out.items():
        assert not [i for i in ids if i.startswith("joins-")], (r, ids)
        assert not {"tpch-q01", "tpch-q04", "tpch-q06", "tpch-q13", "tpch-q22"} & set(ids), (r, ids)
        assert total - len(ids) >= 30, (r, ids)


def test_each_rule_changes_some_plan(datasets, rules, quiver_bin):
    # Disabling a rule must change the plan of at least one query here; else
    # the flag would do nothing and the differential above would test nothing.
    unchanged = []
    for r in rules:
        for p in cases():
            bench, sql = p.values
            prelude = datasets[bench]
            if needs_rule(quiver_bin, prelude, sql, r):
                break  # a plan with a cross product the rule removes: changed
            if explain(quiver_bin, prelude, sql) != explain(quiver_bin, prelude, sql,
                                                            "--disable-optimizer-rule", r):
                break
        else:
            unchanged.append(r)
    assert not unchanged, f"disabling these rules changes no plan: {unchanged}"
