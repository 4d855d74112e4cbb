from __future__ import annotations

from arcguard.main import main


raise SystemExit(main())
