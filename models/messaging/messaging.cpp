#include "models/messaging/messaging.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace torsim::rt {

MessagingLayer::MessagingLayer(Job& job)
    : job_(job),
      requests_(job.kernel),
      ranks_(static_cast<std::size_t>(job.size())),
      running_handlers_(static_cast<std::size_t>(job.size()), false) {}

namespace {
bool tag_matches(Tag want, Tag got) {
  if (want == got || want == kAnyTag) return true;
  return want < kAnyTag && got >= 0 && got >> kTagContextShift == (want & INT32_MAX) >> kTagContextShift;
}
bool matches(Rank want_src, Tag want_tag, const Envelope& e) {
  return (want_src == kAnySource || want_src == e.src) && tag_matches(want_tag, e.tag);
}
}  // namespace

Request MessagingLayer::irecv(Rank self, Rank src, Tag tag) {
  const auto index = requests_.allocate();
  RankQueues& q = ranks_[static_cast<std::size_t>(self)];
  Unexpected arrived{};
  if (!q.unexpected.take_first([&](const Unexpected& u) { return matches(src, tag, u.envelope); }, arrived))
    q.posted.push_back({src, tag, index});
  else if (arrived.on_match.fn)
    kernel().at(kernel().now(),
                {arrived.on_match.fn, arrived.on_match.ctx, arrived.on_match.arg | std::uint64_t{index} << 32});
  else
    requests_.complete(index, arrived.envelope);
  return Request(&requests_, index);
}

void MessagingLayer::deliver(const Envelope& envelope) {
  RankQueues& q = ranks_[static_cast<std::size_t>(envelope.dst)];
  PostedReceive posted{};
  if (q.posted.take_first([&](const PostedReceive& p) { return matches(p.src, p.tag, envelope); }, posted))
    requests_.complete(posted.request, envelope);
  else
    q.unexpected.push_back({envelope, {}});
}

MessagingLayer::MatchWait MessagingLayer::match_receive(const Envelope& envelope) { return MatchWait(*this, envelope); }

bool MessagingLayer::take_posted(const Envelope& envelope, std::uint32_t& request) {
  RankQueues& q = ranks_[static_cast<std::size_t>(envelope.dst)];
  PostedReceive posted{};
  if (!q.posted.take_first([&](const PostedReceive& p) { return matches(p.src, p.tag, envelope); }, posted))
    return false;
  request = posted.request;
  return true;
}

bool MessagingLayer::match_or_wait(const Envelope& envelope, std::uint32_t& request, Callback on_match) {
  if (take_posted(envelope, request)) return true;
  ranks_[static_cast<std::size_t>(envelope.dst)].unexpected.push_back({envelope, on_match});
  return false;
}

bool MessagingLayer::MatchWait::await_ready() { return layer_->take_posted(envelope_, request_); }

void MessagingLayer::MatchWait::await_suspend(std::coroutine_handle<> h) {
  waiter_ = h;
  layer_->ranks_[static_cast<std::size_t>(envelope_.dst)].unexpected.push_back({envelope_, {&matched, this, 0}});
}

void MessagingLayer::MatchWait::matched(void* self, std::uint64_t request_in_upper_half) {
  auto* wait = static_cast<MatchWait*>(self);
  wait->request_ = static_cast<std::uint32_t>(request_in_upper_half >> 32);
  wait->waiter_.resume();
}

HandlerId MessagingLayer::register_handler(AmHandler handler) {
  handlers_.push_back({std::move(handler), {}});
  return static_cast<HandlerId>(handlers_.size() - 1);
}

HandlerId MessagingLayer::register_handler(InstantHandler handler) {
  handlers_.push_back({{}, std::move(handler)});
  return static_cast<HandlerId>(handlers_.size() - 1);
}

void MessagingLayer::deliver_am(HandlerId handler, const Envelope& envelope) {
  const auto dst = static_cast<std::size_t>(envelope.dst);
  const Handler& h = handlers_[handler];
  if (h.instant && !running_handlers_[dst] && handler_overhead(envelope.dst) == 0)
    return h.instant(Comm(*this, envelope.dst), envelope);
  ranks_[dst].active_messages.push_back({handler, envelope});
  if (running_handlers_[dst]) return;
  running_handlers_[dst] = true;
  kernel().spawn(run_handlers(envelope.dst));
}

// The rank's handler loop exists only while it has messages, so idle ranks cost nothing.
Task<> MessagingLayer::run_handlers(Rank self) {
  RankQueues& q = ranks_[static_cast<std::size_t>(self)];
  while (!q.active_messages.empty()) {
    const QueuedAm am = q.active_messages.pop_front();
    if (const Time overhead = handler_overhead(self); overhead > 0)
      co_await cores().run(self, overhead, CpuUse::scheduler);
    const Handler& h = handlers_[am.handler];
    if (h.instant)
      h.instant(Comm(*this, self), am.envelope);
    else
      co_await h.coroutine(Comm(*this, self), am.envelope);
  }
  running_handlers_[static_cast<std::size_t>(self)] = false;
}

Task<Request> MessagingLayer::iput(Rank self, Rank target, Bytes size) {
  const auto request = requests_.allocate();
  kernel().spawn(put_and_complete(self, target, size, request));
  co_return Request(&requests_, request);
}

Task<> MessagingLayer::put_and_complete(Rank self, Rank target, Bytes size, std::uint32_t request) {
  co_await put(self, target, size);
  requests_.complete(request);
}

// Notified puts: data first, then a zero-byte message the target's wait_notify consumes.
Task<> MessagingLayer::put_notify(Rank self, Rank target, Bytes size) {
  co_await put(self, target, size);
  co_await co_await isend(self, target, 0, kFirstCollectiveTag - 1, 0);
}

Task<> MessagingLayer::wait_notify(Rank self, Rank from) {
  if (put_notify_uses_messages()) {
    co_await irecv(self, from, kFirstCollectiveTag - 1);
    co_return;
  }
  co_await notifications_[{self, from}].acquire();
}

void MessagingLayer::notify(Rank target, Rank from) { notifications_[{target, from}].release(kernel()); }

const CollectiveAlgorithms& MessagingLayer::collectives() const {
  if (!collectives_)
    throw std::logic_error("messaging layer '" + std::string(name()) +
                           "' has no collective algorithms (make_messaging_layer installs the defaults)");
  return *collectives_;
}

Tag MessagingLayer::next_collective_tag(Rank self) {
  auto& sequence = ranks_[static_cast<std::size_t>(self)].collective_sequence;
  return kFirstCollectiveTag + static_cast<Tag>(sequence++ % (1u << 29));
}

Task<> MessagingLayer::compute(Rank self, Time duration) {
  if (duration > 0) co_await cores().run(self, duration, CpuUse::compute);
}

Task<> Comm::send_and_wait(Comm c, Rank dst, Bytes size, Tag tag, std::uint64_t word) {
  co_await co_await c.isend(dst, size, tag, word);
}

Task<> Comm::am_send_and_wait(Comm c, Rank dst, HandlerId handler, Bytes size, std::uint64_t word, Tag tag) {
  co_await co_await c.am_isend(dst, handler, size, word, tag);
}

Task<Envelope> Comm::receive_and_wait(Comm c, Rank src, Tag tag) { co_return co_await c.irecv(src, tag); }

Task<Request> Comm::observed_isend(Comm c, Rank dst, Bytes size, Tag tag, std::uint64_t word) {
  Request r = co_await c.layer_->isend(c.rank_, dst, size, tag, word);
  c.layer_->observer()->isend(c.rank_, dst, size, tag, r.id());
  co_return r;
}

// The collective's own messages, between enter_collective and collective, are not the
// workload's calls.
Task<std::uint64_t> Comm::observed_collective(Comm c, CollectiveOp op, Rank root, Bytes bytes,
                                              Task<std::uint64_t> operation) {
  c.layer_->observer()->enter_collective(c.rank_);
  const std::uint64_t result = co_await operation;
  c.layer_->observer()->collective(c.rank_, op, root, bytes);
  co_return result;
}

Task<> Comm::observed_barrier(Comm c) {
  c.layer_->observer()->enter_collective(c.rank_);
  co_await c.layer_->collectives().barrier(c);
  c.layer_->observer()->collective(c.rank_, CollectiveOp::barrier, 0, 0);
}

Task<> Comm::wait_all(std::vector<Request>& requests) {
  for (auto& r : requests) co_await r;
}

}  // namespace torsim::rt
