"""CSV reader interop: Quiver's `quiver convert in.csv out.arrow` against
pyarrow.csv.read_csv on the same file.

Each test writes a CSV file (quoting edge cases, embedded line breaks, CRLF,
unicode, BOM, empty fields vs NULL texts, compressed input, typed columns),
converts it with the real binary (QUIVER_BIN, see conftest.py), reads the
Arrow IPC output with pyarrow and compares it with pyarrow's own CSV reader.

Documented differences that are normalised before comparing:
  * a column with only null texts is utf8 (all null) in Quiver, null in pyarrow.
"""

import gzip
import random

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.ipc as ipc


def quiver_read(run_quiver, tmp_path, src, *flags):
    out = tmp_path / (src.name + ".arrow")
    run_quiver("convert", "--no-progress", *flags, src, out)
    with ipc.open_file(out) as reader:
        return reader.read_all()


def normalise(table):
    """Null-typed columns (pyarrow's all-null inference) become utf8."""
    fields = [
        pa.field(f.name, pa.string()) if pa.types.is_null(f.type) else f
        for f in table.schema
    ]
    return table.cast(pa.schema(fields))


def assert_same(quiver_table, expected):
    expected = normalise(expected).combine_chunks()
    got = quiver_table.combine_chunks()
    assert got.schema.names == expected.schema.names
    assert got.schema.types == expected.schema.types, (got.schema, expected.schema)
    assert got.num_rows == expected.num_rows
    for name in expected.schema.names:
        assert got.column(name).to_pylist() == expected.column(name).to_pylist(), name


def write(tmp_path, name, text, encoding="utf-8"):
    path = tmp_path / name
    data = text.encode(encoding) if isinstance(text, str) else text
    path.write_bytes(data)
    return path


def test_quoting_edge_cases(run_quiver, tmp_path):
    text = (
        'id,text,note\n'
        '1,"a,b","say ""hi"""\n'
        '2,"line1\nline2","crlf\r\ninside"\n'
        '3,"","plain"\n'
        '4,"  padded  ",x\n'
        '5,"""quoted start","end"""\n'
        '6,"ab"cd,tail\n'
        '7,5"6,"x\n\ny"\n'
    )
    src = write(tmp_path, "quotes.csv", text)
    assert_same(quiver_read(run_quiver, tmp_path, src), pacsv.read_csv(src))


def test_crlf_and_no_trailing_newline(run_quiver, tmp_path):
    src = write(tmp_path, "crlf.csv", "a,b\r\n1,x\r\n2,y\r\n\r\n3,z")
    assert_same(quiver_read(run_quiver, tmp_path, src), pacsv.read_csv(src))


def test_unicode_and_bom(run_quiver, tmp_path):
    text = "\ufeffname,city,emoji\nJosé,Zürich,😀\n李雷,北京,🚀\n\"Ærø, DK\",København,\n"
    src = write(tmp_path, "unicode.csv", text)
    got = quiver_read(run_quiver, tmp_path, src)
    assert got.schema.names == ["name", "city", "emoji"]
    assert_same(got, pacsv.read_csv(src))


def test_empty_fields_vs_null_texts(run_quiver, tmp_path):
    text = (
        "s,i,f,allnull\n"
        ",1,1.5,\n"
        "NULL,,NaN,NA\n"
        "NA,NA,,null\n"
        '"",3,"",\n'
        "x,N/A,2,\n"
    )
    src = write(tmp_path, "nulls.csv", text)
    got = quiver_read(run_quiver, tmp_path, src)
    assert got.schema.field("allnull").type == pa.string()
    assert_same(got, pacsv.read_csv(src))


def test_null_flag(run_quiver, tmp_path):
    src = write(tmp_path, "custom_null.csv", "a,b\n-,1\nx,-\n,2\n")
    got = quiver_read(run_quiver, tmp_path, src, "--null", "-")
    expected = pacsv.read_csv(
        src,
        convert_options=pacsv.ConvertOptions(null_values=["-"], strings_can_be_null=True),
    )
    assert_same(got, expected)


def test_inferred_types(run_quiver, tmp_path):
    text = (
        "i,f,b,d,t,ts,tsf,tsz,s\n"
        "1,1.5,true,2024-03-01,13:45:07,2024-03-01 13:45:07,2024-03-01T13:45:07.25,"
        "2024-03-01T13:45:07Z,abc\n"
        "-2,-1e10,False,1969-12-31,00:00:00,1970-01-01 00:00:00,2000-01-01 00:00:00.123456789,"
        "2024-03-01 13:45:07+01:00,12\n"
        "9223372036854775807,inf,TRUE,2000-02-29,23:59:59,2262-04-11 00:00:00,"
        "1999-12-31 23:59:59.5,1970-01-01T00:00:00Z,\n"
    )
    src = write(tmp_path, "types.csv", text)
    got = quiver_read(run_quiver, tmp_path, src)
    expected = pacsv.read_csv(src)
    assert_same(got, expected)
    assert got.schema.field("tsz").type == pa.timestamp("s", tz="UTC")


def test_explicit_schema(run_quiver, tmp_path):
    src = write(tmp_path, "schema.csv", "a,b,c,d\n1,0042,12.30,2024-03-01 10:00:00.5\n,x,-0.05,\n")
    got = quiver_read(
        run_quiver, tmp_path, src,
        "--schema", "a:int32,b:utf8,c:decimal128(10,2),d:timestamp[ms]",
    )
    column_types = {
        "a": pa.int32(), "b": pa.string(), "c": pa.decimal128(10, 2), "d": pa.timestamp("ms"),
    }
    expected = pacsv.read_csv(src, convert_options=pacsv.ConvertOptions(column_types=column_types))
    assert_same(got, expected)


def test_delimiter_quote_no_header(run_quiver, tmp_path):
    src = write(tmp_path, "semi.txt", "1;'a;b';'it''s'\n2;plain;''\n")
    got = quiver_read(
        run_quiver, tmp_path, src, "--from", "csv", "--delimiter", ";", "--quote", "'", "--no-header"
    )
    expected = pacsv.read_csv(
        src,
        read_options=pacsv.ReadOptions(autogenerate_column_names=True),
        parse_options=pacsv.ParseOptions(delimiter=";", quote_char="'"),
    )
    assert_same(got, expected)


def random_table_text(rows, seed=7):
    rng = random.Random(seed)
    words = ["alpha", "béta", "γάμμα", "delta,comma", 'quote"d', "multi\nline", "cr\r\nlf", ""]
    lines = ["id,name,value,flag,day"]
    for i in range(rows):
        word = rng.choice(words)
        if any(c in word for c in ',"\r\n') or word == "":
            word = '"' + word.replace('"', '""') + '"'
        value = "" if rng.random() < 0.05 else repr(round(rng.uniform(-1e6, 1e6), 3))
        flag = rng.choice(["true", "false", ""])
        day = "2024-%02d-%02d" % (rng.randint(1, 12), rng.randint(1, 28))
        lines.append(f"{i},{word},{value},{flag},{day}")
    return "\n".join(lines) + "\n"


def test_large_file_many_blocks(run_quiver, tmp_path):
    # ~12 MB: several 4 MB blocks parsed in parallel, with quoted line breaks
    # around the speculative block boundaries.
    src = write(tmp_path, "large.csv", random_table_text(300_000))
    got = quiver_read(run_quiver, tmp_path, src, "--batch-rows", "50000")
    expected = pacsv.read_csv(src, read_options=pacsv.ReadOptions(block_size=64 << 20))
    assert_same(got, expected)
    assert got.column("id").to_pylist() == list(range(300_000))


def test_gzip_input(run_quiver, tmp_path):
    text = random_table_text(2000, seed=3)
    plain = write(tmp_path, "plain.csv", text)
    src = write(tmp_path, "data.csv.gz", gzip.compress(text.encode()))
    assert_same(quiver_read(run_quiver, tmp_path, src, "--from", "csv"), pacsv.read_csv(plain))


def test_zstd_input(run_quiver, tmp_path):
    text = random_table_text(2000, seed=4)
    plain = write(tmp_path, "plain.csv", text)
    src = tmp_path / "data.csv.zst"
    with pa.CompressedOutputStream(str(src), "zstd") as out:
        out.write(text.encode())
    assert_same(quiver_read(run_quiver, tmp_path, src, "--from", "csv"), pacsv.read_csv(plain))


def test_ragged_row_error_names_line(run_quiver, tmp_path):
    src = write(tmp_path, "ragged.csv", 'a,b,c\n1,2,3\n"x\ny",2,3\n4,5,6,7\n')
    out = tmp_path / "ragged.arrow"
    proc = run_quiver("convert", "--no-progress", src, out, check=False)
    assert proc.returncode != 0
    assert "ragged.csv: line 5: expected 3 fields, found 4" in proc.stderr, proc.stderr
    assert not out.exists()


def test_bad_value_error_names_line_and_column(run_quiver, tmp_path):
    src = write(tmp_path, "bad.csv", "id,price\n1,2.5\n2,abc\n")
    proc = run_quiver(
        "convert", "--no-progress", "--schema", "price:float64", src, tmp_path / "bad.arrow",
        check=False,
    )
    assert proc.returncode != 0
    assert "bad.csv: line 3, column 'price': cannot parse 'abc' as double" in proc.stderr, proc.stderr
