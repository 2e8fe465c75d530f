#include "cli/app.hpp"

int main(int argc, char** argv) { return podsim::cli::run(argc, argv); }
