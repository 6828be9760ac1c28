"""Reads exported Parquet files from S3 with pyarrow (an independent reader) and prints one JSON
line: for each file, its schema (type, nullability, timestamp unit and time zone), row groups,
the codecs of its column chunks, and its rows (timestamps as integer microseconds).

usage: read_parquet.py <bucket> <key>...   (S3_ENDPOINT, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY from the environment)
"""
import json
import os
import sys

import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq


def field_info(field):
    info = {"name": field.name, "type": str(field.type), "nullable": field.nullable}
    if pa.types.is_timestamp(field.type):
        info["unit"] = field.type.unit
        info["tz"] = field.type.tz
    return info


def plain_rows(table):
    # Timestamps as microseconds since the epoch, so they compare exactly with ClickHouse's Int64.
    columns = []
    for field, column in zip(table.schema, table.columns):
        columns.append(column.cast(pa.int64()) if pa.types.is_timestamp(field.type) else column)
    return pa.table(columns, names=table.column_names).to_pylist()


def main():
    bucket, keys = sys.argv[1], sys.argv[2:]
    s3 = pafs.S3FileSystem(
        access_key=os.environ["S3_ACCESS_KEY_ID"],
        secret_key=os.environ["S3_SECRET_ACCESS_KEY"],
        endpoint_override=os.environ["S3_ENDPOINT"],
        region="us-east-1",
    )
    files = []
    for key in keys:
        with s3.open_input_file(f"{bucket}/{key}") as f:
            parquet = pq.ParquetFile(f)
            meta = parquet.metadata
            codecs = sorted(
                {meta.row_group(g).column(c).compression for g in range(meta.num_row_groups) for c in range(meta.num_columns)}
            )
            table = parquet.read()
        files.append(
            {
                "key": key,
                "num_rows": meta.num_rows,
                "row_groups": meta.num_row_groups,
                "codecs": codecs,
                "schema": [field_info(f) for f in table.schema],
                "rows": plain_rows(table),
            }
        )
    print(json.dumps({"files": files}))


if __name__ == "__main__":
    main()
