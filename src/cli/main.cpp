#include "cli/app.hpp"
#include "partition/communicator.hpp"

int main(int argc, char** argv) {
  // MPI starts here when podsim was launched by mpirun, and ends when the session does.
  const podsim::partition::Session session(argc, argv);
  return podsim::cli::run(argc, argv, session.world());
}
