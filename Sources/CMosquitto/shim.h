#pragma once

// libmosquitto, the MQTT client library of the mosquitto project (Debian: libmosquitto-dev).
// HandoffRelay is its only user; it calls the library from Swift as declared here.
#include <sys/socket.h>
#include <mosquitto.h>
