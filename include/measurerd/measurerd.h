// The measurerd client library: everything a program needs to measure tensor-program
// candidates through a running measurerd. Link with measurerd::client (CMake,
// `find_package(measurerd CONFIG)`) or `pkg-config --cflags --libs measurerd`.
#pragma once

#include "measurerd/client.h"
#include "measurerd/record.h"
#include "measurerd/task.h"
#include "measurerd/types.h"
#include "measurerd/version.h"
