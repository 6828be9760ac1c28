"""Reads every Parquet file under s3://<bucket>/<prefix> with pyarrow (an independent reader,
Apache Arrow's C++ implementation) and prints one JSON line: per file its key, row count, the
Arrow type of each column, the compression codecs of its column chunks, its Hive partition
values, and its rows (timestamps as integer microseconds since the epoch).

usage: read_parquet_export.py <endpoint> <access_key> <secret_key> <bucket> <prefix>
"""
import json
import sys
from urllib.parse import urlparse

import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq


def main() -> None:
    endpoint, access_key, secret_key, bucket, prefix = sys.argv[1:6]
    url = urlparse(endpoint)
    fs = pafs.S3FileSystem(access_key=access_key, secret_key=secret_key, endpoint_override=url.netloc, scheme=url.scheme, region="us-east-1")
    infos = fs.get_file_info(pafs.FileSelector(f"{bucket}/{prefix}", recursive=True, allow_not_found=True))
    files = []
    for info in sorted(infos, key=lambda i: i.path):
        if info.type != pafs.FileType.File or not info.path.endswith(".parquet"):
            continue
        with fs.open_input_file(info.path) as f:
            parquet = pq.ParquetFile(f)
            meta = parquet.metadata
            codecs = sorted({meta.row_group(g).column(c).compression for g in range(meta.num_row_groups) for c in range(meta.num_columns)})
            table = parquet.read()
        schema = {field.name: str(field.type) for field in table.schema}
        # Timestamps as integer microseconds, whatever their timezone.
        columns = []
        for field in table.schema:
            column = table.column(field.name)
            if pa.types.is_timestamp(field.type):
                column = column.cast(pa.timestamp("us", tz=field.type.tz)).cast(pa.int64())
            columns.append(column)
        records = pa.Table.from_arrays(columns, names=table.schema.names).to_pylist()
        key = info.path[len(bucket) + 1:]
        partitions = dict(part.split("=", 1) for part in key.split("/") if "=" in part)
        files.append({"key": key, "rows": meta.num_rows, "row_groups": meta.num_row_groups, "schema": schema, "codecs": codecs, "partitions": partitions, "records": records})
    print(json.dumps({"files": files}))


if __name__ == "__main__":
    main()
