// Where this process stands in a distributed job, read from the environment that
// `paddle_like launch` (PaddlePaddle's variables) or OpenMPI's mpirun sets:
//
//   PADDLE_TRAINER_ID, PADDLE_TRAINERS_NUM       rank and number of ranks
//   PADDLE_TRAINER_ENDPOINTS                     host:port of every rank, comma separated
//   PADDLE_CURRENT_ENDPOINT                      this rank's host:port
//   PADDLE_MASTER                                host:port of the rendezvous store (optional;
//                                                default: the first trainer endpoint)
//   OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_SIZE   rank and size under mpirun (when the PADDLE_
//                                                variables are absent); the store is then at
//                                                PADDLE_MASTER, else MASTER_ADDR:MASTER_PORT,
//                                                else 127.0.0.1:6170
//
// With none of them the process is rank 0 of a one-rank job.
#pragma once

#include <string>
#include <vector>

namespace paddle_like {
namespace platform {
namespace collective {

struct CollectiveEnv {
  int rank = 0;
  int nranks = 1;
  std::vector<std::string> endpoints;  // host:port per rank (may be empty under mpirun).
  std::string current_endpoint;        // This rank's host:port (may be empty).
  std::string master;                  // host:port of the rendezvous store.
  std::string source;                  // "paddle", "mpi" or "none", for messages.

  bool distributed() const { return nranks > 1; }
  // The host this rank's transport binds to: the current endpoint's host, else 127.0.0.1
  // for a job on one machine, else this machine's host name.
  std::string LocalHost() const;
};

// Reads the variables above; InvalidArgumentError names a variable that does not parse or
// that contradicts another (a rank outside [0, nranks), an endpoint list of another length).
CollectiveEnv CollectiveEnvFromEnvironment();

// Splits "host:port" into its parts; InvalidArgumentError names `what` on a malformed one.
void SplitEndpoint(const std::string& endpoint, const std::string& what, std::string* host,
                   int* port);

}  // namespace collective
}  // namespace platform
}  // namespace paddle_like
