#!/usr/bin/env bash
# Copies scikit-learn's bundled `digits.csv.gz` and `boston_house_prices.csv` out of Debian's
# `python3-sklearn` package into DIR/sklearn/ without installing the package (or its many
# dependencies). Skips the download when both files are already there.
#
#   scripts/fetch_datasets.sh [DIR]    # DIR defaults to build/datasets
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DEST="$(realpath -m "${1:-$ROOT/build/datasets}")/sklearn"
FILES=(digits.csv.gz boston_house_prices.csv)

have_all=1
for f in "${FILES[@]}"; do [[ -s "$DEST/$f" ]] || have_all=0; done
if ((have_all)); then
  echo "fetch_datasets: $DEST already holds ${FILES[*]}"
  exit 0
fi

SUDO=""
[[ $(id -u) -ne 0 ]] && command -v sudo >/dev/null && SUDO="sudo"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# apt-get download writes into the current directory, as the `_apt` user where it can.
chmod 755 "$TMP"
(
  cd "$TMP"
  if ! apt-get download -qq python3-sklearn >/dev/null 2>&1; then
    echo "fetch_datasets: refreshing the package lists"
    $SUDO apt-get update -qq
    apt-get download -qq python3-sklearn >/dev/null
  fi
)
deb=("$TMP"/python3-sklearn_*.deb)
dpkg-deb -x "${deb[0]}" "$TMP/extracted"

mkdir -p "$DEST"
for f in "${FILES[@]}"; do
  src=$(find "$TMP/extracted" -path "*/sklearn/datasets/data/$f" -print -quit)
  if [[ -z "$src" ]]; then
    echo "fetch_datasets: $(basename "${deb[0]}") holds no sklearn/datasets/data/$f" >&2
    exit 1
  fi
  cp "$src" "$DEST/$f.tmp"
  mv "$DEST/$f.tmp" "$DEST/$f"
done
echo "fetch_datasets: wrote ${FILES[*]} to $DEST"
