// The one Catch2 main shared by every runtime test file.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
