import { registerSuite } from "./_suite.ts";

registerSuite("forced_read");
