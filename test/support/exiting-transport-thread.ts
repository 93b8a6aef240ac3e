// A delivery thread that exits, as a real one could (a native crash, memory exhausted), as soon as it is handed an
// attempt to a path ending in `/exit-thread`; it runs every other attempt as the real delivery thread does.
import './exit-thread-on-request.js';
import '../../src/adapters/http/transport-thread.js';
