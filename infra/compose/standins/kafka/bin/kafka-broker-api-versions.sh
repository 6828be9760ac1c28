#!/bin/sh
# As the distribution's bin/kafka-broker-api-versions.sh: the API versions each broker answers.
exec java -Xmx256m -cp '/opt/kafka/libs/*' -Dlog4j.configuration=file:/opt/kafka/config/log4j.properties \
  kafka.admin.BrokerApiVersionsCommand "$@"
