#!/usr/bin/env bash
# Vendors htmx into kaboom/web/vendor/ (package data of the wheel): ./scripts/vendor-htmx.sh 2.0.11
# Only updating htmx needs npm: `npm pack` fetches the registry's htmx.org package; this copies
# dist/htmx.min.js and its licence and records the version, the tarball's integrity and the
# file's sha256 in kaboom/web/vendor/vendored.json, which a test checks against the file.
set -euo pipefail
cd "$(dirname "$0")/.."
version=${1:?usage: $0 VERSION}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent --json "htmx.org@$version" >pack.json && tar xzf htmx.org-*.tgz)
cp "$tmp/package/dist/htmx.min.js" kaboom/web/vendor/htmx.min.js
cp "$tmp/package/LICENSE" kaboom/web/vendor/htmx.LICENSE
python3 - "$tmp/pack.json" <<'PY'
import hashlib, json, sys
from pathlib import Path

pack = json.loads(Path(sys.argv[1]).read_text())[0]
meta = json.loads((Path(sys.argv[1]).with_name("package") / "package.json").read_text())
record = {
    "htmx.min.js": {
        "package": "npm:htmx.org",
        "version": pack["version"],
        "file": "dist/htmx.min.js",
        "license": meta["license"],
        "license_file": "htmx.LICENSE",
        "tarball_integrity": pack["integrity"],
        "sha256": hashlib.sha256(Path("kaboom/web/vendor/htmx.min.js").read_bytes()).hexdigest(),
    }
}
Path("kaboom/web/vendor/vendored.json").write_text(json.dumps(record, indent=2) + "\n")
print(f"htmx {pack['version']} vendored ({meta['license']})")
PY
