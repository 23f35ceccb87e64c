from kaboom.cli import main

raise SystemExit(main())
