#include "models/apps/replay/dumpi_functions.hpp"

#include <array>
#include <stdexcept>
#include <string>

namespace torsim::replay::dumpi {

namespace {

struct Row {
  std::string_view name;
  CallType type;
  const char* layout;  // "KIND:name ...", a '?' before KIND: only at the root; nullptr: never written
};

// Labels 0..289 in the order of sst-dumpi's dumpi_function enumeration (funclabels.h); each
// layout lists the arguments in the order sst-dumpi stores them.
// clang-format off
constexpr std::array<Row, kAllFunctions> kRows = {{
    {"MPI_Send", CallType::send, "i:count T:datatype i:dest i:tag C:comm"},  // 0
    {"MPI_Recv", CallType::recv, "i:count T:datatype i:source i:tag C:comm S:status"},  // 1
    {"MPI_Get_count", CallType::other, "S:status T:datatype i:count"},  // 2
    {"MPI_Bsend", CallType::bsend, "i:count T:datatype i:dest i:tag C:comm"},  // 3
    {"MPI_Ssend", CallType::ssend, "i:count T:datatype i:dest i:tag C:comm"},  // 4
    {"MPI_Rsend", CallType::rsend, "i:count T:datatype i:dest i:tag C:comm"},  // 5
    {"MPI_Buffer_attach", CallType::other, "i:size"},  // 6
    {"MPI_Buffer_detach", CallType::other, "i:size"},  // 7
    {"MPI_Isend", CallType::isend, "i:count T:datatype i:dest i:tag C:comm R:request"},  // 8
    {"MPI_Ibsend", CallType::ibsend, "i:count T:datatype i:dest i:tag C:comm R:request"},  // 9
    {"MPI_Issend", CallType::issend, "i:count T:datatype i:dest i:tag C:comm R:request"},  // 10
    {"MPI_Irsend", CallType::irsend, "i:count T:datatype i:dest i:tag C:comm R:request"},  // 11
    {"MPI_Irecv", CallType::irecv, "i:count T:datatype i:source i:tag C:comm R:request"},  // 12
    {"MPI_Wait", CallType::wait, "R:request S:status"},  // 13
    {"MPI_Test", CallType::test, "R:request i:flag S:status"},  // 14
    {"MPI_Request_free", CallType::request_free, "R:request"},  // 15
    {"MPI_Waitany", CallType::waitany, "i:count Q:requests i:index S:status"},  // 16
    {"MPI_Testany", CallType::testany, "i:count Q:requests i:index i:flag S:status"},  // 17
    {"MPI_Waitall", CallType::waitall, "i:count Q:requests S:statuses"},  // 18
    {"MPI_Testall", CallType::testall, "i:count Q:requests i:flag S:statuses"},  // 19
    {"MPI_Waitsome", CallType::waitsome, "i:count Q:requests i:outcount I:indices S:statuses"},  // 20
    {"MPI_Testsome", CallType::testsome, "i:count Q:requests i:outcount I:indices S:statuses"},  // 21
    {"MPI_Iprobe", CallType::iprobe, "i:source i:tag C:comm i:flag S:status"},  // 22
    {"MPI_Probe", CallType::probe, "i:source i:tag C:comm S:status"},  // 23
    {"MPI_Cancel", CallType::cancel, "R:request"},  // 24
    {"MPI_Test_cancelled", CallType::other, "S:status i:cancelled"},  // 25
    {"MPI_Send_init", CallType::send_init, "i:count T:datatype i:dest i:tag C:comm R:request"},  // 26
    {"MPI_Bsend_init", CallType::send_init, "i:count T:datatype i:dest i:tag C:comm R:request"},  // 27
    {"MPI_Ssend_init", CallType::send_init, "i:count T:datatype i:dest i:tag C:comm R:request"},  // 28
    {"MPI_Rsend_init", CallType::send_init, "i:count T:datatype i:dest i:tag C:comm R:request"},  // 29
    {"MPI_Recv_init", CallType::recv_init, "i:count T:datatype i:source i:tag C:comm R:request"},  // 30
    {"MPI_Start", CallType::start, "R:request"},  // 31
    {"MPI_Startall", CallType::startall, "i:count Q:requests"},  // 32
    {"MPI_Sendrecv", CallType::sendrecv, "i:sendcount T:sendtype i:dest i:sendtag i:recvcount T:recvtype i:source i:recvtag C:comm S:status"},  // 33
    {"MPI_Sendrecv_replace", CallType::sendrecv_replace, "i:count T:datatype i:dest i:sendtag i:source i:recvtag C:comm S:status"},  // 34
    {"MPI_Type_contiguous", CallType::other, "i:count T:oldtype T:newtype"},  // 35
    {"MPI_Type_vector", CallType::other, "i:count i:blocklength i:stride T:oldtype T:newtype"},  // 36
    {"MPI_Type_hvector", CallType::other, "i:count i:blocklength i:stride T:oldtype T:newtype"},  // 37
    {"MPI_Type_indexed", CallType::other, "i:count I:lengths I:indices T:oldtype T:newtype"},  // 38
    {"MPI_Type_hindexed", CallType::other, "i:count I:lengths I:indices T:oldtype T:newtype"},  // 39
    {"MPI_Type_struct", CallType::other, "i:count I:lengths I:indices U:oldtypes T:newtype"},  // 40
    {"MPI_Address", CallType::other, "i:address"},  // 41
    {"MPI_Type_extent", CallType::other, "T:datatype i:extent"},  // 42
    {"MPI_Type_size", CallType::other, "T:datatype i:size"},  // 43
    {"MPI_Type_lb", CallType::other, "T:datatype i:lb"},  // 44
    {"MPI_Type_ub", CallType::other, "T:datatype i:ub"},  // 45
    {"MPI_Type_commit", CallType::other, "T:datatype"},  // 46
    {"MPI_Type_free", CallType::other, "T:datatype"},  // 47
    {"MPI_Get_elements", CallType::other, "S:status T:datatype i:elements"},  // 48
    {"MPI_Pack", CallType::other, "i:incount T:datatype i:outcount i:position_in i:position_out C:comm"},  // 49
    {"MPI_Unpack", CallType::other, "i:incount i:position_in i:position_out i:outcount T:datatype C:comm"},  // 50
    {"MPI_Pack_size", CallType::other, "i:incount T:datatype C:comm i:size"},  // 51
    {"MPI_Barrier", CallType::barrier, "C:comm"},  // 52
    {"MPI_Bcast", CallType::bcast, "i:count T:datatype i:root C:comm"},  // 53
    {"MPI_Gather", CallType::gather, "i:commrank i:sendcount T:sendtype i:root C:comm ?i:recvcount ?T:recvtype"},  // 54
    {"MPI_Gatherv", CallType::gatherv, "i:commrank i:commsize i:sendcount T:sendtype i:root C:comm ?I:recvcounts ?I:displs T:recvtype"},  // 55
    {"MPI_Scatter", CallType::scatter, "i:commrank i:recvcount T:recvtype i:root C:comm ?i:sendcount ?T:sendtype"},  // 56
    {"MPI_Scatterv", CallType::scatterv, "i:commrank i:commsize T:sendtype i:recvcount T:recvtype i:root C:comm ?I:sendcounts ?I:displs"},  // 57
    {"MPI_Allgather", CallType::allgather, "i:sendcount T:sendtype i:recvcount T:recvtype C:comm"},  // 58
    {"MPI_Allgatherv", CallType::allgatherv, "i:commsize i:sendcount T:sendtype I:recvcounts I:displs T:recvtype C:comm"},  // 59
    {"MPI_Alltoall", CallType::alltoall, "i:sendcount T:sendtype i:recvcount T:recvtype C:comm"},  // 60
    {"MPI_Alltoallv", CallType::alltoallv, "i:commsize I:sendcounts I:senddispls T:sendtype I:recvcounts I:recvdispls T:recvtype C:comm"},  // 61
    {"MPI_Reduce", CallType::reduce, "i:count T:datatype O:op i:root C:comm"},  // 62
    {"MPI_Op_create", CallType::other, "i:commute O:op"},  // 63
    {"MPI_Op_free", CallType::other, "O:op"},  // 64
    {"MPI_Allreduce", CallType::allreduce, "i:count T:datatype O:op C:comm"},  // 65
    {"MPI_Reduce_scatter", CallType::reduce_scatter, "i:commsize I:recvcounts T:datatype O:op C:comm"},  // 66
    {"MPI_Scan", CallType::scan, "i:count T:datatype O:op C:comm"},  // 67
    {"MPI_Group_size", CallType::other, "G:group i:size"},  // 68
    {"MPI_Group_rank", CallType::other, "G:group i:rank"},  // 69
    {"MPI_Group_translate_ranks", CallType::other, "G:group1 i:count I:ranks1 G:group2 I:ranks2"},  // 70
    {"MPI_Group_compare", CallType::other, "G:group1 G:group2 b:result"},  // 71
    {"MPI_Comm_group", CallType::comm_group, "C:comm G:group"},  // 72
    {"MPI_Group_union", CallType::group_union, "G:group1 G:group2 G:newgroup"},  // 73
    {"MPI_Group_intersection", CallType::group_intersection, "G:group1 G:group2 G:newgroup"},  // 74
    {"MPI_Group_difference", CallType::group_difference, "G:group1 G:group2 G:newgroup"},  // 75
    {"MPI_Group_incl", CallType::group_incl, "G:group i:count I:ranks G:newgroup"},  // 76
    {"MPI_Group_excl", CallType::group_excl, "G:group i:count I:ranks G:newgroup"},  // 77
    {"MPI_Group_range_incl", CallType::group_range_incl, "G:group i:count J:ranges G:newgroup"},  // 78
    {"MPI_Group_range_excl", CallType::group_range_excl, "G:group i:count J:ranges G:newgroup"},  // 79
    {"MPI_Group_free", CallType::group_free, "G:group"},  // 80
    {"MPI_Comm_size", CallType::comm_size, "C:comm i:size"},  // 81
    {"MPI_Comm_rank", CallType::comm_rank, "C:comm i:rank"},  // 82
    {"MPI_Comm_compare", CallType::other, "C:comm1 C:comm2 b:result"},  // 83
    {"MPI_Comm_dup", CallType::comm_dup, "C:oldcomm C:newcomm"},  // 84
    {"MPI_Comm_create", CallType::comm_create, "C:oldcomm G:group C:newcomm"},  // 85
    {"MPI_Comm_split", CallType::comm_split, "C:oldcomm i:color i:key C:newcomm"},  // 86
    {"MPI_Comm_free", CallType::comm_free, "C:comm"},  // 87
    {"MPI_Comm_test_inter", CallType::other, "C:comm i:inter"},  // 88
    {"MPI_Comm_remote_size", CallType::other, "C:comm i:size"},  // 89
    {"MPI_Comm_remote_group", CallType::other, "C:comm G:group"},  // 90
    {"MPI_Intercomm_create", CallType::other, "C:localcomm i:localleader C:remotecomm i:remoteleader i:tag C:newcomm"},  // 91
    {"MPI_Intercomm_merge", CallType::other, "C:comm i:high C:newcomm"},  // 92
    {"MPI_Keyval_create", CallType::other, "h:key"},  // 93
    {"MPI_Keyval_free", CallType::other, "h:key"},  // 94
    {"MPI_Attr_put", CallType::other, "C:comm i:key"},  // 95
    {"MPI_Attr_get", CallType::other, "C:comm i:key i:flag"},  // 96
    {"MPI_Attr_delete", CallType::other, "C:comm i:key"},  // 97
    {"MPI_Topo_test", CallType::other, "C:comm b:topo"},  // 98
    {"MPI_Cart_create", CallType::cart_create, "C:oldcomm i:ndim I:dims I:periods i:reorder C:newcomm"},  // 99
    {"MPI_Dims_create", CallType::other, "i:nodes i:ndim I:dims_in I:dims_out"},  // 100
    {"MPI_Graph_create", CallType::other, "i:numedges C:oldcomm i:nodes I:index I:edges i:reorder C:newcomm"},  // 101
    {"MPI_Graphdims_get", CallType::other, "C:comm i:nodes i:edges"},  // 102
    {"MPI_Graph_get", CallType::other, "i:totedges i:totnodes C:comm i:maxindex i:maxedges I:index I:edges"},  // 103
    {"MPI_Cartdim_get", CallType::other, "C:comm i:ndim"},  // 104
    {"MPI_Cart_get", CallType::other, "i:ndim C:comm i:maxdims I:dims I:periods I:coords"},  // 105
    {"MPI_Cart_rank", CallType::other, "i:ndim C:comm I:coords i:rank"},  // 106
    {"MPI_Cart_coords", CallType::other, "i:ndim C:comm i:rank i:maxdims I:coords"},  // 107
    {"MPI_Graph_neighbors_count", CallType::other, "C:comm i:rank i:nneigh"},  // 108
    {"MPI_Graph_neighbors", CallType::other, "i:nneigh C:comm i:rank i:maxneighbors I:neighbors"},  // 109
    {"MPI_Cart_shift", CallType::other, "C:comm i:direction i:displ i:source i:dest"},  // 110
    {"MPI_Cart_sub", CallType::cart_sub, "i:ndim C:oldcomm I:remain_dims C:newcomm"},  // 111
    {"MPI_Cart_map", CallType::other, "C:comm i:ndim I:dims I:period i:newrank"},  // 112
    {"MPI_Graph_map", CallType::other, "i:numedges C:comm i:nodes I:index I:edges i:newrank"},  // 113
    {"MPI_Get_processor_name", CallType::other, "s:name i:resultlen"},  // 114
    {"MPI_Get_version", CallType::other, "i:version i:subversion"},  // 115
    {"MPI_Errhandler_create", CallType::other, "h:errhandler"},  // 116
    {"MPI_Errhandler_set", CallType::other, "C:comm h:errhandler"},  // 117
    {"MPI_Errhandler_get", CallType::other, "C:comm h:errhandler"},  // 118
    {"MPI_Errhandler_free", CallType::other, "h:errhandler"},  // 119
    {"MPI_Error_string", CallType::other, "i:errorcode s:errorstring i:resultlen"},  // 120
    {"MPI_Error_class", CallType::other, "i:errorcode i:errorclass"},  // 121
    {"MPI_Wtime", CallType::other, ""},  // 122
    {"MPI_Wtick", CallType::other, ""},  // 123
    {"MPI_Init", CallType::init, "A:argv"},  // 124
    {"MPI_Finalize", CallType::finalize, ""},  // 125
    {"MPI_Initialized", CallType::other, "i:result"},  // 126
    {"MPI_Abort", CallType::other, "C:comm i:errorcode"},  // 127
    {"MPI_Pcontrol", CallType::other, nullptr},  // 128
    {"MPI_Close_port", CallType::other, "s:portname"},  // 129
    {"MPI_Comm_accept", CallType::other, "s:portname h:info i:root C:oldcomm C:newcomm"},  // 130
    {"MPI_Comm_connect", CallType::other, "s:portname h:info i:root C:oldcomm C:newcomm"},  // 131
    {"MPI_Comm_disconnect", CallType::other, "C:comm"},  // 132
    {"MPI_Comm_get_parent", CallType::other, "C:parent"},  // 133
    {"MPI_Comm_join", CallType::other, "i:fd C:comm"},  // 134
    {"MPI_Comm_spawn", CallType::other, "i:oldcommrank i:root C:oldcomm C:newcomm ?s:command ?A:argv ?i:maxprocs ?h:info ?I:errcodes"},  // 135
    {"MPI_Comm_spawn_multiple", CallType::other, "i:totprocs i:oldcommrank i:root C:oldcomm C:newcomm ?i:count ?A:commands ?W:argvs ?I:maxprocs ?H:info ?I:errcodes"},  // 136
    {"MPI_Lookup_name", CallType::other, "s:servicename h:info s:portname"},  // 137
    {"MPI_Open_port", CallType::other, "h:info s:portname"},  // 138
    {"MPI_Publish_name", CallType::other, "s:servicename h:info s:portname"},  // 139
    {"MPI_Unpublish_name", CallType::other, "s:servicename h:info s:portname"},  // 140
    {"MPI_Accumulate", CallType::other, "i:origincount T:origintype i:targetrank i:targetdisp i:targetcount T:targettype O:op h:win"},  // 141
    {"MPI_Get", CallType::other, "i:origincount T:origintype i:targetrank i:targetdisp i:targetcount T:targettype h:win"},  // 142
    {"MPI_Put", CallType::other, "i:origincount T:origintype i:targetrank i:targetdisp i:targetcount T:targettype h:win"},  // 143
    {"MPI_Win_complete", CallType::other, "h:win"},  // 144
    {"MPI_Win_create", CallType::other, "i:size i:dispunit h:info C:comm h:win"},  // 145
    {"MPI_Win_fence", CallType::other, "b:assertion h:win"},  // 146
    {"MPI_Win_free", CallType::other, "h:win"},  // 147
    {"MPI_Win_get_group", CallType::other, "h:win G:group"},  // 148
    {"MPI_Win_lock", CallType::other, "b:locktype i:winrank b:assertion h:win"},  // 149
    {"MPI_Win_post", CallType::other, "G:group b:assertion h:win"},  // 150
    {"MPI_Win_start", CallType::other, "G:group b:assertion h:win"},  // 151
    {"MPI_Win_test", CallType::other, "h:win i:flag"},  // 152
    {"MPI_Win_unlock", CallType::other, "i:winrank h:win"},  // 153
    {"MPI_Win_wait", CallType::other, "h:win"},  // 154
    {"MPI_Alltoallw", CallType::alltoallw, "i:commsize I:sendcounts I:senddispls U:sendtypes I:recvcounts I:recvdispls U:recvtypes C:comm"},  // 155
    {"MPI_Exscan", CallType::exscan, "i:count T:datatype O:op C:comm"},  // 156
    {"MPI_Add_error_class", CallType::other, "i:errorclass"},  // 157
    {"MPI_Add_error_code", CallType::other, "i:errorclass i:errorcode"},  // 158
    {"MPI_Add_error_string", CallType::other, "i:errorcode s:errorstring"},  // 159
    {"MPI_Comm_call_errhandler", CallType::other, "C:comm i:errorcode"},  // 160
    {"MPI_Comm_create_keyval", CallType::other, "h:keyval"},  // 161
    {"MPI_Comm_delete_attr", CallType::other, "C:comm h:keyval"},  // 162
    {"MPI_Comm_free_keyval", CallType::other, "h:keyval"},  // 163
    {"MPI_Comm_get_attr", CallType::other, "C:comm h:keyval i:flag"},  // 164
    {"MPI_Comm_get_name", CallType::other, "C:comm s:name i:resultlen"},  // 165
    {"MPI_Comm_set_attr", CallType::other, "C:comm h:keyval"},  // 166
    {"MPI_Comm_set_name", CallType::other, "C:comm s:name"},  // 167
    {"MPI_File_call_errhandler", CallType::other, "h:file i:errorcode"},  // 168
    {"MPI_Grequest_complete", CallType::other, "R:request"},  // 169
    {"MPI_Grequest_start", CallType::other, "R:request"},  // 170
    {"MPI_Init_thread", CallType::init, "A:argv b:required b:provided"},  // 171
    {"MPI_Is_thread_main", CallType::other, "i:flag"},  // 172
    {"MPI_Query_thread", CallType::other, "b:supported"},  // 173
    {"MPI_Status_set_cancelled", CallType::other, "S:status i:flag"},  // 174
    {"MPI_Status_set_elements", CallType::other, "S:status T:datatype i:count"},  // 175
    {"MPI_Type_create_keyval", CallType::other, "h:keyval"},  // 176
    {"MPI_Type_delete_attr", CallType::other, "T:datatype h:keyval"},  // 177
    {"MPI_Type_dup", CallType::other, "T:oldtype T:newtype"},  // 178
    {"MPI_Type_free_keyval", CallType::other, "h:keyval"},  // 179
    {"MPI_Type_get_attr", CallType::other, "T:datatype h:keyval i:flag"},  // 180
    {"MPI_Type_get_contents", CallType::other, "i:numdatatypes i:numaddresses i:numintegers T:datatype i:maxintegers i:maxaddresses i:maxdatatypes I:arrintegers I:arraddresses U:arrdatatypes"},  // 181
    {"MPI_Type_get_envelope", CallType::other, "T:datatype i:numintegers i:numaddresses i:numdatatypes b:combiner"},  // 182
    {"MPI_Type_get_name", CallType::other, "T:datatype s:name i:resultlen"},  // 183
    {"MPI_Type_set_attr", CallType::other, "T:datatype h:keyval"},  // 184
    {"MPI_Type_set_name", CallType::other, "T:datatype s:name"},  // 185
    {"MPI_Type_match_size", CallType::other, "b:typeclass i:size T:datatype"},  // 186
    {"MPI_Win_call_errhandler", CallType::other, "h:win i:errorcode"},  // 187
    {"MPI_Win_create_keyval", CallType::other, "h:keyval"},  // 188
    {"MPI_Win_delete_attr", CallType::other, "h:win h:keyval"},  // 189
    {"MPI_Win_free_keyval", CallType::other, "h:keyval"},  // 190
    {"MPI_Win_get_attr", CallType::other, "h:win h:keyval i:flag"},  // 191
    {"MPI_Win_get_name", CallType::other, "h:win s:name i:resultlen"},  // 192
    {"MPI_Win_set_attr", CallType::other, "h:win h:keyval"},  // 193
    {"MPI_Win_set_name", CallType::other, "h:win s:name"},  // 194
    {"MPI_Alloc_mem", CallType::other, "i:size h:info"},  // 195
    {"MPI_Comm_create_errhandler", CallType::other, "h:errhandler"},  // 196
    {"MPI_Comm_get_errhandler", CallType::other, "C:comm h:errhandler"},  // 197
    {"MPI_Comm_set_errhandler", CallType::other, "C:comm h:errhandler"},  // 198
    {"MPI_File_create_errhandler", CallType::other, "h:errhandler"},  // 199
    {"MPI_File_get_errhandler", CallType::other, "h:file h:errhandler"},  // 200
    {"MPI_File_set_errhandler", CallType::other, "h:file h:errhandler"},  // 201
    {"MPI_Finalized", CallType::other, "i:flag"},  // 202
    {"MPI_Free_mem", CallType::other, ""},  // 203
    {"MPI_Get_address", CallType::other, "i:address"},  // 204
    {"MPI_Info_create", CallType::other, "h:info"},  // 205
    {"MPI_Info_delete", CallType::other, "h:info s:key"},  // 206
    {"MPI_Info_dup", CallType::other, "h:oldinfo h:newinfo"},  // 207
    {"MPI_Info_free", CallType::other, "h:info"},  // 208
    {"MPI_Info_get", CallType::other, "h:info s:key i:valuelength s:value i:flag"},  // 209
    {"MPI_Info_get_nkeys", CallType::other, "h:info i:nkeys"},  // 210
    {"MPI_Info_get_nthkey", CallType::other, "h:info i:n s:key"},  // 211
    {"MPI_Info_get_valuelen", CallType::other, "h:info s:key i:valuelen i:flag"},  // 212
    {"MPI_Info_set", CallType::other, "h:info s:key s:value"},  // 213
    {"MPI_Pack_external", CallType::other, "s:datarep i:incount T:intype i:outcount i:position_in i:position_out"},  // 214
    {"MPI_Pack_external_size", CallType::other, "s:datarep i:incount T:datatype i:size"},  // 215
    {"MPI_Request_get_status", CallType::other, "R:request i:flag S:status"},  // 216
    {"MPI_Type_create_darray", CallType::other, "i:size i:rank i:ndims I:gsizes B:distribs I:dargs I:psizes b:order T:oldtype T:newtype"},  // 217
    {"MPI_Type_create_hindexed", CallType::other, "i:count I:blocklengths I:displacements T:oldtype T:newtype"},  // 218
    {"MPI_Type_create_hvector", CallType::other, "i:count i:blocklength i:stride T:oldtype T:newtype"},  // 219
    {"MPI_Type_create_indexed_block", CallType::other, "i:count i:blocklength I:displacments T:oldtype T:newtype"},  // 220
    {"MPI_Type_create_resized", CallType::other, "T:oldtype i:lb i:extent T:newtype"},  // 221
    {"MPI_Type_create_struct", CallType::other, "i:count I:blocklengths I:displacements U:oldtypes T:newtype"},  // 222
    {"MPI_Type_create_subarray", CallType::other, "i:ndims I:sizes I:subsizes I:starts b:order T:oldtype T:newtype"},  // 223
    {"MPI_Type_get_extent", CallType::other, "T:datatype i:lb i:extent"},  // 224
    {"MPI_Type_get_true_extent", CallType::other, "T:datatype i:lb i:extent"},  // 225
    {"MPI_Unpack_external", CallType::other, "s:datarep i:insize i:position_in i:position_out i:outcount T:datatype"},  // 226
    {"MPI_Win_create_errhandler", CallType::other, "h:errhandler"},  // 227
    {"MPI_Win_get_errhandler", CallType::other, "h:win h:errhandler"},  // 228
    {"MPI_Win_set_errhandler", CallType::other, "h:win h:errhandler"},  // 229
    {"MPI_File_open", CallType::other, "C:comm s:filename b:amode h:info h:file"},  // 230
    {"MPI_File_close", CallType::other, "h:file"},  // 231
    {"MPI_File_delete", CallType::other, "s:filename h:info"},  // 232
    {"MPI_File_set_size", CallType::other, "h:file l:size"},  // 233
    {"MPI_File_preallocate", CallType::other, "h:file l:size"},  // 234
    {"MPI_File_get_size", CallType::other, "h:file l:size"},  // 235
    {"MPI_File_get_group", CallType::other, "h:file G:group"},  // 236
    {"MPI_File_get_amode", CallType::other, "h:file b:amode"},  // 237
    {"MPI_File_set_info", CallType::other, "h:file h:info"},  // 238
    {"MPI_File_get_info", CallType::other, "h:file h:info"},  // 239
    {"MPI_File_set_view", CallType::other, "h:file l:offset T:hosttype T:filetype s:datarep h:info"},  // 240
    {"MPI_File_get_view", CallType::other, "h:file l:offset T:hosttype T:filetype s:datarep"},  // 241
    {"MPI_File_read_at", CallType::other, "h:file l:offset i:count T:datatype S:status"},  // 242
    {"MPI_File_read_at_all", CallType::other, "h:file l:offset i:count T:datatype S:status"},  // 243
    {"MPI_File_write_at", CallType::other, "h:file l:offset i:count T:datatype S:status"},  // 244
    {"MPI_File_write_at_all", CallType::other, "h:file l:offset i:count T:datatype S:status"},  // 245
    {"MPI_File_iread_at", CallType::other, "h:file l:offset i:count T:datatype R:request"},  // 246
    {"MPI_File_iwrite_at", CallType::other, "h:file l:offset i:count T:datatype R:request"},  // 247
    {"MPI_File_read", CallType::other, "h:file i:count T:datatype S:status"},  // 248
    {"MPI_File_read_all", CallType::other, "h:file i:count T:datatype S:status"},  // 249
    {"MPI_File_write", CallType::other, "h:file i:count T:datatype S:status"},  // 250
    {"MPI_File_write_all", CallType::other, "h:file i:count T:datatype S:status"},  // 251
    {"MPI_File_iread", CallType::other, "h:file i:count T:datatype R:request"},  // 252
    {"MPI_File_iwrite", CallType::other, "h:file i:count T:datatype R:request"},  // 253
    {"MPI_File_seek", CallType::other, "h:file l:offset b:whence"},  // 254
    {"MPI_File_get_position", CallType::other, "h:file l:offset"},  // 255
    {"MPI_File_get_byte_offset", CallType::other, "h:file l:offset l:bytes"},  // 256
    {"MPI_File_read_shared", CallType::other, "h:file i:count T:datatype S:status"},  // 257
    {"MPI_File_write_shared", CallType::other, "h:file i:count T:datatype S:status"},  // 258
    {"MPI_File_iread_shared", CallType::other, "h:file i:count T:datatype R:request"},  // 259
    {"MPI_File_iwrite_shared", CallType::other, "h:file i:count T:datatype R:request"},  // 260
    {"MPI_File_read_ordered", CallType::other, "h:file i:count T:datatype S:status"},  // 261
    {"MPI_File_write_ordered", CallType::other, "h:file i:count T:datatype S:status"},  // 262
    {"MPI_File_seek_shared", CallType::other, "h:file l:offset b:whence"},  // 263
    {"MPI_File_get_position_shared", CallType::other, "h:file l:offset"},  // 264
    {"MPI_File_read_at_all_begin", CallType::other, "h:file l:offset i:count T:datatype"},  // 265
    {"MPI_File_read_at_all_end", CallType::other, "h:file S:status"},  // 266
    {"MPI_File_write_at_all_begin", CallType::other, "h:file l:offset i:count T:datatype"},  // 267
    {"MPI_File_write_at_all_end", CallType::other, "h:file S:status"},  // 268
    {"MPI_File_read_all_begin", CallType::other, "h:file i:count T:datatype"},  // 269
    {"MPI_File_read_all_end", CallType::other, "h:file S:status"},  // 270
    {"MPI_File_write_all_begin", CallType::other, "h:file i:count T:datatype"},  // 271
    {"MPI_File_write_all_end", CallType::other, "h:file S:status"},  // 272
    {"MPI_File_read_ordered_begin", CallType::other, "h:file i:count T:datatype"},  // 273
    {"MPI_File_read_ordered_end", CallType::other, "h:file S:status"},  // 274
    {"MPI_File_write_ordered_begin", CallType::other, "h:file i:count T:datatype"},  // 275
    {"MPI_File_write_ordered_end", CallType::other, "h:file S:status"},  // 276
    {"MPI_File_get_type_extent", CallType::other, "h:file T:datatype i:extent"},  // 277
    {"MPI_Register_datarep", CallType::other, "s:name"},  // 278
    {"MPI_File_set_atomicity", CallType::other, "h:file i:flag"},  // 279
    {"MPI_File_get_atomicity", CallType::other, "h:file i:flag"},  // 280
    {"MPI_File_sync", CallType::other, "h:file"},  // 281
    {"MPIO_Test", CallType::other, "R:request i:flag S:status"},  // 282
    {"MPIO_Wait", CallType::other, "R:request S:status"},  // 283
    {"MPIO_Testall", CallType::other, "i:count Q:requests i:flag S:statuses"},  // 284
    {"MPIO_Waitall", CallType::other, "i:count Q:requests S:statuses"},  // 285
    {"MPIO_Testany", CallType::other, "i:count Q:requests i:flag i:index S:statuses"},  // 286
    {"MPIO_Waitany", CallType::other, "i:count Q:requests i:index S:statuses"},  // 287
    {"MPIO_Waitsome", CallType::other, "i:count Q:requests i:outcount I:indices S:statuses"},  // 288
    {"MPIO_Testsome", CallType::other, "i:count Q:requests i:outcount I:indices S:statuses"},  // 289

}};
// clang-format on

std::vector<ArgSpec> parse_layout(const char* layout) {
  std::vector<ArgSpec> args;
  std::string_view rest = layout;
  while (!rest.empty()) {
    const std::size_t end = std::min(rest.find(' '), rest.size());
    std::string_view token = rest.substr(0, end);
    rest.remove_prefix(std::min(end + 1, rest.size()));
    const bool root_only = token.front() == '?';
    if (root_only) token.remove_prefix(1);
    args.push_back({static_cast<Kind>(token.front()), root_only, token.substr(2)});
  }
  return args;
}

std::vector<FunctionSpec> build_functions() {
  std::vector<FunctionSpec> functions;
  for (const Row& row : kRows)
    functions.push_back(
        {row.name, row.type, row.layout != nullptr, row.layout ? parse_layout(row.layout) : std::vector<ArgSpec>{}});
  functions.push_back({"MPI_ALL_FUNCTIONS", CallType::other, false, {}});
  // Profiled user functions (sst-dumpi's function profiling): the function's address.
  functions.push_back({"function_enter", CallType::other, true, parse_layout("l:fn")});
  functions.push_back({"function_exit", CallType::other, true, parse_layout("l:fn")});
  return functions;
}

// clang-format off
constexpr std::array<std::string_view, kFirstUserDatatype> kDatatypeNames = {
    "MPI_DATATYPE_ERROR", "MPI_DATATYPE_NULL", "MPI_CHAR", "MPI_SIGNED_CHAR", "MPI_UNSIGNED_CHAR", "MPI_BYTE",
    "MPI_WCHAR", "MPI_SHORT", "MPI_UNSIGNED_SHORT", "MPI_INT", "MPI_UNSIGNED", "MPI_LONG", "MPI_UNSIGNED_LONG",
    "MPI_FLOAT", "MPI_DOUBLE", "MPI_LONG_DOUBLE", "MPI_LONG_LONG_INT", "MPI_UNSIGNED_LONG_LONG", "MPI_LONG_LONG",
    "MPI_PACKED", "MPI_LB", "MPI_UB", "MPI_FLOAT_INT", "MPI_DOUBLE_INT", "MPI_LONG_INT", "MPI_SHORT_INT", "MPI_2INT",
    "MPI_LONG_DOUBLE_INT"};
constexpr std::array<std::string_view, 15> kOpNames = {
    "MPI_OP_ERROR", "MPI_MAX", "MPI_MIN", "MPI_SUM", "MPI_PROD", "MPI_LAND", "MPI_BAND", "MPI_LOR", "MPI_BOR",
    "MPI_LXOR", "MPI_BXOR", "MPI_MINLOC", "MPI_MAXLOC", "MPI_REPLACE", "MPI_OP_NULL"};
constexpr std::array<std::string_view, 4> kCommNames = {"MPI_COMM_ERROR", "MPI_COMM_NULL", "MPI_COMM_WORLD",
                                                        "MPI_COMM_SELF"};
// clang-format on

}  // namespace

const FunctionSpec& function(std::uint16_t label) {
  static const std::vector<FunctionSpec> functions = build_functions();
  return functions.at(label);
}

std::string_view datatype_name(std::int32_t id) {
  return id >= 0 && id < kFirstUserDatatype ? kDatatypeNames[static_cast<std::size_t>(id)] : "user-defined-datatype";
}

std::string_view op_name(std::int32_t op) {
  return op >= 0 && op < static_cast<std::int32_t>(kOpNames.size()) ? kOpNames[static_cast<std::size_t>(op)]
                                                                    : "user-defined-op";
}

std::string_view comm_name(std::int32_t handle) {
  return handle >= 0 && handle < static_cast<std::int32_t>(kCommNames.size())
             ? kCommNames[static_cast<std::size_t>(handle)]
             : "user-defined-comm";
}

}  // namespace torsim::replay::dumpi
