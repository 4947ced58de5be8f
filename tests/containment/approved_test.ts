import { registerSuite } from "./_suite.ts";

registerSuite("approved");
