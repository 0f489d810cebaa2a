#!/bin/bash
set -euo pipefail
cd /app/photos
for f in *; do
  case "${f##*.}" in
    [Jj][Pp][Gg]|[Jj][Pp][Ee][Gg]) new="${f%.*}.jpg"; [ "$f" = "$new" ] || mv -- "$f" "$new" ;;
  esac
done
