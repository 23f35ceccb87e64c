#!/usr/bin/env bash
# Vendors htmx and its SSE extension into kaboom/web/vendor/ (package data of the wheel):
#   ./scripts/vendor-htmx.sh 2.0.11 2.2.4      # htmx.org's version, then htmx-ext-sse's
# Only updating them needs npm: `npm pack` fetches each package from the registry; this copies
# its minified file and licence and records the version, the tarball's integrity and the
# file's sha256 in kaboom/web/vendor/vendored.json, which a test checks against the files.
set -euo pipefail
cd "$(dirname "$0")/.."
htmx=${1:?usage: $0 HTMX_VERSION SSE_VERSION}
sse=${2:?usage: $0 HTMX_VERSION SSE_VERSION}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# package@version, file in the tarball, name here, licence name here
vendor() {
  mkdir "$tmp/$3" && (cd "$tmp/$3" && npm pack --silent --json "$1" >pack.json && tar xzf ./*.tgz)
  cp "$tmp/$3/package/$2" "kaboom/web/vendor/$3"
  cp "$tmp/$3/package/LICENSE" "kaboom/web/vendor/$4"
}
vendor "htmx.org@$htmx" dist/htmx.min.js htmx.min.js htmx.LICENSE
vendor "htmx-ext-sse@$sse" dist/sse.min.js sse.min.js sse.LICENSE
python3 - "$tmp" <<'PY'
import hashlib, json, sys
from pathlib import Path

record = {}
for name, file, licence in [("htmx.min.js", "dist/htmx.min.js", "htmx.LICENSE"),
                            ("sse.min.js", "dist/sse.min.js", "sse.LICENSE")]:
    where = Path(sys.argv[1]) / name
    pack = json.loads((where / "pack.json").read_text())[0]
    meta = json.loads((where / "package" / "package.json").read_text())
    record[name] = {
        "package": f"npm:{pack['name']}",
        "version": pack["version"],
        "file": file,
        "license": meta.get("license", "0BSD"),
        "license_file": licence,
        "tarball_integrity": pack["integrity"],
        "sha256": hashlib.sha256(Path("kaboom/web/vendor", name).read_bytes()).hexdigest(),
    }
    print(f"{pack['name']} {pack['version']} vendored ({record[name]['license']})")
Path("kaboom/web/vendor/vendored.json").write_text(json.dumps(record, indent=2) + "\n")
PY
