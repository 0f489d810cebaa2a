"""One module per provider wire format; each imports its SDK only when a client first needs it."""

from __future__ import annotations
