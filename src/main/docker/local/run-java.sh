#!/bin/sh
# The image's JVM launcher, with the environment contract of UBI's run-java.sh that the manifests
# use: JAVA_OPTS (the image's defaults), GC_CONTAINER_OPTIONS (the collector), JAVA_OPTS_APPEND
# (the Deployment's flags), then the fast-jar. exec: the JVM is PID 1 and gets the kubelet's SIGTERM.
# shellcheck disable=SC2086
exec /opt/java/bin/java $JAVA_OPTS ${GC_CONTAINER_OPTIONS:-} $JAVA_OPTS_APPEND -jar /deployments/quarkus-run.jar "$@"
