#!/usr/bin/env bash
# The desktop integration the .deb installs: `cmake --install` puts the menu entry, the icon and
# the ONNX mime type where the freedesktop specifications look, the entry validates, and the
# mime database built from our package maps *.onnx to application/x-onnx.
# usage: check_desktop_files.sh BUILD_DIR
set -euo pipefail
build="$1"
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
DESTDIR="$stage" cmake --install "$build" --prefix /usr >/dev/null
share="$stage/usr/share"
for f in applications/graphlens.desktop icons/hicolor/scalable/apps/graphlens.svg mime/packages/graphlens.xml; do
  [ -f "$share/$f" ] || { echo "not installed: share/$f"; exit 1; }
done
desktop-file-validate "$share/applications/graphlens.desktop"
grep -qx 'MimeType=application/x-onnx;' "$share/applications/graphlens.desktop" ||
  { echo "the menu entry does not open application/x-onnx"; exit 1; }
/usr/bin/python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' \
  "$share/icons/hicolor/scalable/apps/graphlens.svg"
update-mime-database "$share/mime"
grep -q '^application/x-onnx:\*\.onnx$' "$share/mime/globs" ||
  { echo "the mime database does not map *.onnx to application/x-onnx"; exit 1; }
echo "desktop integration: entry, icon and mime type installed and valid"
