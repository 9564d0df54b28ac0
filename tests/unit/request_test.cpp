#include <catch2/catch.hpp>

#include <vector>

#include "models/messaging/request.hpp"

using namespace torsim;

namespace {
Task<> await_request(rt::Request& request, rt::Envelope& got, bool& resumed) {
  got = co_await request;
  resumed = true;
}
}  // namespace

TEST_CASE("requests complete, wake their waiter and are reused once done and dropped", "[request]") {
  Kernel kernel;
  rt::RequestPool pool(kernel);
  // More than 64 requests: their states span several groups of flags.
  std::vector<std::uint32_t> ids;
  for (int i = 0; i < 200; ++i) ids.push_back(pool.allocate());
  CHECK(pool.in_use() == 200);
  for (std::uint32_t id : ids) CHECK_FALSE(pool.done(id));
  for (std::size_t i = 0; i < ids.size(); i += 3) pool.complete(ids[i], {static_cast<rt::Rank>(i), 1, 2, 3, 4});
  for (std::size_t i = 0; i < ids.size(); ++i) CHECK(pool.done(ids[i]) == (i % 3 == 0));
  CHECK(pool.envelope(ids[99]).src == 99);

  // Released before completion: the slot is freed by complete(), not before.
  pool.release(ids[100]);
  CHECK(pool.in_use() == 200);
  pool.complete(ids[100]);
  CHECK(pool.in_use() == 199);
  // Released after completion: freed at once; the next allocation takes it, not done.
  pool.release(ids[3]);
  CHECK(pool.in_use() == 198);
  const std::uint32_t reused = pool.allocate();
  CHECK(reused == ids[3]);
  CHECK_FALSE(pool.done(reused));

  // A process waiting on a request resumes, as an event, once it completes.
  rt::Request request(&pool, ids[130]);
  rt::Envelope got{};
  bool resumed = false;
  kernel.spawn(await_request(request, got, resumed));
  kernel.run();
  CHECK_FALSE(resumed);
  pool.complete(ids[130], {7, 8, 9, 10, 11});
  CHECK_FALSE(resumed);  // not inline: at the current time, as an event
  kernel.run();
  CHECK(resumed);
  CHECK(got.src == 7);
  CHECK(got.word == 11);
}
