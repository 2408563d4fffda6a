#!/usr/bin/perl
# Net::SMPP (libnet-smpp-perl) sending and reading text in a data_coding it names, octets given
# and printed in hex so that no Perl or shell encoding comes between them.
#   submit HOST PORT SYSTEM_ID PASSWORD DESTINATION DATA_CODING:HEX...
#     one submit_sm each; prints "submitted <id>" or "refused <status>"
#   receive HOST PORT SYSTEM_ID PASSWORD
#     binds as receiver, prints "bound", then "deliver data_coding=<n> hex=<octets>" for the
#     first deliver_sm that is not a receipt
use strict;
use warnings;
use Net::SMPP;

my ($mode, $host, $port, $system_id, $password, @rest) = @ARGV;
$| = 1;
my $bind = $mode eq 'receive' ? \&Net::SMPP::new_receiver : \&Net::SMPP::new_transceiver;
my ($smpp, $resp) = $bind->('Net::SMPP', $host, port => $port, system_id => $system_id, password => $password, smpp_version => 0x34, timeout => 10);
die "no connection\n" unless $smpp;
die "bind refused: status $resp->{status}\n" if $resp->{status} != 0;
print "bound\n";

if ($mode eq 'submit') {
    my ($destination, @messages) = @rest;
    for my $message (@messages) {
        my ($data_coding, $hex) = split /:/, $message;
        my $submit = $smpp->submit_sm(
            destination_addr => $destination,
            dest_addr_ton    => 1,
            data_coding      => $data_coding,
            short_message    => pack('H*', $hex),
        );
        if ($submit->{status} == 0) {
            print "submitted $submit->{message_id}\n";
        } else {
            print "refused $submit->{status}\n";
        }
    }
} else {
    local $SIG{ALRM} = sub { die "no deliver_sm in time\n" };
    alarm 30;
    while (my $pdu = $smpp->read_pdu()) {
        if ($pdu->{cmd} == 0x00000015) {    # enquire_link
            $smpp->enquire_link_resp(seq => $pdu->{seq});
            next;
        }
        next unless $pdu->{cmd} == 0x00000005;    # deliver_sm
        $smpp->deliver_sm_resp(seq => $pdu->{seq}, message_id => '');
        next if $pdu->{esm_class} & 0x04;
        print "deliver data_coding=$pdu->{data_coding} hex=" . unpack('H*', $pdu->{short_message}) . "\n";
        last;
    }
    alarm 0;
}
$smpp->unbind();
