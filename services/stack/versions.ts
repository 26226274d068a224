// Pinned versions of the local stack. Kafka's jars and the registry's assembly come from Maven
// Central through `mvn`, into a cache folder outside the repository (see paths.ts).
export const KAFKA_VERSION = '3.9.2';
export const SCALA_VERSION = '2.13';
// Apicurio Registry 3.3.x is built for Java 21; 3.0.9 is the newest 3.x line that runs on the
// Java 17 this machine kind ships, and its Central artifact carries the `all` tar.gz assembly.
export const APICURIO_VERSION = '3.0.9';
